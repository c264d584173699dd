// `npm run import` as a process against an embedded data directory: a good
// file is loaded, a file with a bad line loads nothing unless --skip-invalid,
// standard input works, and a held directory is one line, not a lock error,
// said before the file is read.
import { spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../src/warehouse/index.js";
import { bundleOf } from "../../support/built-commands.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const root = join(import.meta.dirname, "../../..");
const project = "abcdefghijklmnopqrst";

function edgeLine(n: number, overrides: Record<string, unknown> = {}) {
  const path = "/rest/v1/todos";
  return JSON.stringify({
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    timestamp: `2026-11-20T21:59:${String(n % 60).padStart(2, "0")}.123456Z`,
    event_message: `GET | 200 | ${path}`,
    project,
    metadata: [
      {
        request: [{ method: "GET", path, url: `https://${project}.supabase.co${path}` }],
        response: [{ status_code: 200 }],
      },
    ],
    ...overrides,
  });
}

let dir: string;
let warehouse: Warehouse | undefined;
const runs: Record<string, SpawnSyncReturns<string>> = {};
let holderPid: number | undefined;

function runImport(args: string[], dataDir: string, input?: string) {
  return spawnSync(process.execPath, [bundleOf("cli/import"), ...args], {
    cwd: root,
    env: { ...process.env, CHDB_PATH: dataDir },
    input,
    encoding: "utf8",
    timeout: 60_000,
  });
}

beforeAll(async () => {
  dir = makeTemporaryDirectory("sqe-import-");
  const dataDir = join(dir, "data");
  const good = join(dir, "good.ndjson");
  const mixed = join(dir, "mixed.ndjson");
  // 5 rows over batches of 2: three inserts.
  writeFileSync(good, `${[1, 2, 3, 4, 5].map((n) => edgeLine(n)).join("\n")}\n`);
  writeFileSync(mixed, `${[edgeLine(11), edgeLine(12, { id: "x" }), "", edgeLine(13), "{"].join("\n")}\n`);
  runs.good = runImport(["--table", "edge_logs", "--batch-size", "2", good], dataDir);
  // The same lines into auth_logs (same columns), with bad ones: nothing, then the good ones.
  runs.mixed = runImport(["--table", "auth_logs", mixed], dataDir);
  runs.skipping = runImport(["--table", "postgres_logs", "--skip-invalid", mixed], dataDir);
  runs.stdin = runImport(["--table", "pgbouncer_logs", "-"], dataDir, [21, 22].map((n) => edgeLine(n)).join("\n"));

  // A directory another process holds.
  const heldDir = join(dir, "held");
  const holder = spawn(process.execPath, [join(root, "test/support/hold-data-directory.mjs"), heldDir], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  await new Promise<void>((resolve) => holder.stdout!.once("data", () => resolve()));
  // With bad lines in the file too: the held directory is what is said, before the file is read.
  runs.held = runImport(["--table", "edge_logs", mixed], heldDir);
  holderPid = holder.pid;
  const exited = new Promise((resolve) => holder.once("exit", resolve));
  holder.kill("SIGTERM");
  await exited;

  warehouse = await openWarehouse({ kind: "embedded", path: dataDir, database: "default" });
}, 180_000);
afterAll(async () => {
  await warehouse?.close();
  removeTemporaryDirectory(dir);
});

async function ids(table: string): Promise<string[]> {
  const result = await warehouse!.client.query({ query: `SELECT id FROM ${table} ORDER BY id`, format: "JSONEachRow" });
  return (await result.json<{ id: string }>()).map((r) => r.id.slice(-2));
}

describe("npm run import", () => {
  it("loads every row of a good file in batches, saying how far it got", async () => {
    expect(runs.good!.status).toBe(0);
    expect(runs.good!.stdout).toBe("imported 5 rows into edge_logs\n");
    expect(runs.good!.stderr.match(/\d+ of 5 rows inserted/g)).toEqual([
      "2 of 5 rows inserted",
      "4 of 5 rows inserted",
      "5 of 5 rows inserted",
    ]);
    expect(await ids("edge_logs")).toEqual(["01", "02", "03", "04", "05"]);
    const [row] = await (
      await warehouse!.client.query({
        query: "SELECT toString(timestamp) AS t, metadata, status_code FROM edge_logs WHERE id LIKE '%01'",
        format: "JSONEachRow",
      })
    ).json<{ t: string; metadata: string; status_code: number }>();
    expect(row).toEqual({
      t: "2026-11-20 21:59:01.123456",
      metadata: `[{"request":[{"method":"GET","path":"/rest/v1/todos","url":"https://${project}.supabase.co/rest/v1/todos"}],"response":[{"status_code":200}]}]`,
      status_code: 200,
    });
  });

  it("inserts nothing from a file with a bad line, and reports each bad line by number", async () => {
    expect(runs.mixed!.status).toBe(1);
    expect(runs.mixed!.stderr).toContain("import: line 2: id must be a UUID string\n");
    expect(runs.mixed!.stderr).toContain("import: line 5: not valid JSON\n");
    expect(runs.mixed!.stderr).toContain("error: 2 bad lines in ");
    expect(await ids("auth_logs")).toEqual([]);
  });

  it("inserts the good lines with --skip-invalid", async () => {
    expect(runs.skipping!.status).toBe(0);
    expect(runs.skipping!.stdout).toBe("imported 2 rows into postgres_logs (2 bad lines skipped)\n");
    expect(await ids("postgres_logs")).toEqual(["11", "13"]);
  });

  it("reads standard input for -", async () => {
    expect(runs.stdin!.status).toBe(0);
    expect(await ids("pgbouncer_logs")).toEqual(["21", "22"]);
  });

  it("says in one line that another process holds the data directory, before reading the file", () => {
    expect(runs.held!.status).toBe(1);
    expect(runs.held!.stdout).toBe("");
    // Nothing about the file's bad lines: it was not read.
    expect(runs.held!.stderr).toBe(
      `error: another process (pid ${holderPid}, the running service?) holds the data directory ${join(dir, "held")}; stop it, or set CLICKHOUSE_URL to work through a server\n`,
    );
  });
});

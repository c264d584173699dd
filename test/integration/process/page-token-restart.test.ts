// Page tokens outlive the service process: in embedded mode with no
// PAGE_TOKEN_SECRET, the secret is generated once and kept in the data
// directory (mode 0600), so the next process opens the tokens of the last.
import { spawnSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bundleOf } from "../../support/built-commands.js";
import { type ServiceProcess, startServiceProcess } from "../../support/service-process.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const key = "page-token-restart-key-0123";
const project = "pagetokenrestartabcd";
const running: ServiceProcess[] = [];
const directories: string[] = [];
afterEach(async () => {
  for (const service of running.splice(0)) if (service.child.exitCode === null) await service.stop();
  for (const directory of directories.splice(0)) removeTemporaryDirectory(directory);
});

/**
 * Imports 150 edge_logs rows of `project` into `dataDir` with `npm run import`,
 * one a second back from now: a page and a half of logs.all.
 */
function importRows(dataDir: string): void {
  const now = Date.now();
  const lines = Array.from({ length: 150 }, (_, i) => {
    const path = "/rest/v1/todos";
    return JSON.stringify({
      id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, "0")}`,
      timestamp: new Date(now - (i + 1) * 1000).toISOString(),
      event_message: `GET | 200 | ${path}`,
      project,
      metadata: [{ request: [{ method: "GET", path, url: `https://${project}.supabase.co${path}` }] }],
    });
  });
  const file = join(dataDir, "..", "rows.ndjson");
  writeFileSync(file, `${lines.join("\n")}\n`);
  const imported = spawnSync(process.execPath, [bundleOf("cli/import"), "--table", "edge_logs", file], {
    env: { ...process.env, CHDB_PATH: dataDir },
    encoding: "utf8",
    timeout: 60_000,
  });
  expect({ status: imported.status, stdout: imported.stdout }).toEqual({
    status: 0,
    stdout: "imported 150 rows into edge_logs\n",
  });
}

/** The service over `dataDir` (no demo data), until stopped. */
async function start(dataDir: string): Promise<{ service: ServiceProcess; url: string }> {
  const service = startServiceProcess({
    CHDB_PATH: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    API_KEYS: key,
    DEMO_DATA: "0",
  });
  running.push(service);
  return { service, url: await service.listening() };
}

interface Page {
  status: number;
  rows: { id: string; timestamp: string }[];
  token?: string;
}

async function logsPage(url: string, token?: string): Promise<Page> {
  const query = token === undefined ? "" : `&page_token=${encodeURIComponent(token)}`;
  const response = await fetch(`${url}/api/endpoints/logs.all?project=${project}${query}`, {
    headers: { "x-api-key": key },
  });
  const body = (await response.json()) as { result?: Page["rows"]; next_page_token?: string };
  return { status: response.status, rows: body.result ?? [], token: body.next_page_token };
}

describe("page tokens across a restart", () => {
  it("are opened by the next process over the same data directory, from a secret kept there", async () => {
    const directory = makeTemporaryDirectory("sqe-page-tokens-");
    directories.push(directory);
    const dataDir = join(directory, "data");
    importRows(dataDir);
    const first = await start(dataDir);
    const page = await logsPage(first.url);
    expect(page.status).toBe(200);
    expect(page.rows).toHaveLength(100);
    expect(page.token).toBeDefined();
    await first.service.stop();

    const secretFile = join(dataDir, "page-token-secret");
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    // 32 random bytes as base64url.
    const secret = readFileSync(secretFile, "utf8");
    expect(secret.trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const second = await start(dataDir);
    const next = await logsPage(second.url, page.token);
    expect(next.status).toBe(200);
    expect(next.rows.length).toBeGreaterThan(0);
    // The next page starts past the last row of the first: older, or as old with a smaller id.
    const last = page.rows[page.rows.length - 1]!;
    const head = next.rows[0]!;
    expect(head.timestamp < last.timestamp || (head.timestamp === last.timestamp && head.id < last.id)).toBe(true);
    expect(next.rows.filter((r) => page.rows.some((p) => p.id === r.id))).toEqual([]);
    // Made once: the second start read it and wrote nothing.
    expect(readFileSync(secretFile, "utf8")).toBe(secret);
  });
});

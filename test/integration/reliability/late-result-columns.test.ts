// A service started while its warehouse is away checks the saved queries'
// result columns when the warehouse comes: here the embedded directory is
// held by another process at start, and logs.all's SQL (a fixture) returns
// its timestamp as text. Once the holder lets go, the schema is migrated, the
// mismatch is logged at error with the problem, and /readyz and every saved
// query keep answering 503 rather than failing each call.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type RunningService } from "../../../src/service/index.js";
import { readConfig } from "../../../src/config/index.js";
import { createLogger } from "../../../src/observability/index.js";
import { readSavedQuerySql } from "../../../src/warehouse/index.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const key = "late-columns-key-0123456789";
const BEFORE_SUNSET = Date.UTC(2026, 10, 20);
const started = Date.now();
const textTimestampSql = `SELECT id, toString(timestamp) AS timestamp, event_message, metadata FROM edge_logs
  WHERE project = {project:String} AND {project_tier:String} IN ('FREE', 'PRO', 'PAYG', 'ENTERPRISE')
    AND {iso_timestamp_start:Nullable(DateTime64(6, 'UTC'))} IS NULL AND {iso_timestamp_end:Nullable(DateTime64(6, 'UTC'))} IS NULL AND {cursor_timestamp:Nullable(String)} IS NULL AND {cursor_id:Nullable(String)} IS NULL
    AND timestamp < {now:DateTime64(6, 'UTC')}`;

let dir: string;
let holder: ChildProcess | undefined;
let service: RunningService | undefined;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  dir = makeTemporaryDirectory("sqe-late-");
  const dataDir = join(dir, "data");
  holder = spawn(process.execPath, [join(import.meta.dirname, "../../support/hold-data-directory.mjs"), dataDir], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  await new Promise<void>((resolve) => holder!.stdout!.once("data", () => resolve()));
  service = await startService({
    config: readConfig({
      CHDB_PATH: dataDir,
      PORT: "0",
      API_KEYS: key,
      DEMO_DATA: "0",
      WAREHOUSE_RETRY_SECONDS: "0.2",
    }),
    logger: createLogger({ write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) }),
    print: () => {},
    // Before usage.api-counts' sunset whatever the date, moving at the real pace (the /readyz reuse below).
    clock: () => BEFORE_SUNSET + (Date.now() - started),
    readSql: (name) => (name === "logs.all" ? textTimestampSql : readSavedQuerySql(name)),
  });
}, 120_000);
afterAll(async () => {
  await service?.stop();
  if (holder !== undefined && holder.exitCode === null) {
    holder.kill("SIGTERM");
    await new Promise((resolve) => holder!.once("exit", resolve));
  }
  removeTemporaryDirectory(dir);
});

async function waitFor(predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const get = (path: string) => fetch(`${service!.url}${path}`, { headers: { "x-api-key": key } });

describe("result columns checked when the warehouse comes after the service", () => {
  it("listens while the warehouse is away, not ready", async () => {
    expect((await fetch(`${service!.url}/readyz`)).status).toBe(503);
  });

  it("logs the mismatch at error once the schema is migrated, and stays not ready with every saved query 503", async () => {
    holder!.kill("SIGTERM");
    await new Promise((resolve) => holder!.once("exit", resolve));
    await waitFor(() => lines.some((line) => line.msg === "warehouse reachable, schema up to date"));
    await waitFor(() => lines.some((line) => line.level === "error"));
    expect(lines.filter((line) => line.level === "error")).toEqual([
      {
        time: expect.any(String),
        level: "error",
        msg: "saved queries do not fit their row messages; answering 503 until sql/ and proto/ agree and the service restarts",
        problems: [
          "logs.all: result column timestamp (String) cannot fill logs.v1.LogRecord.timestamp (Timestamp field)",
        ],
      },
    ]);
    // Past the second for which /readyz reuses an answer, and the engine is open: still 503.
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await fetch(`${service!.url}/readyz`)).status).toBe(503);
    for (const path of [
      "/api/endpoints/logs.all?project=p",
      "/api/endpoints/usage.api-counts?project=p&interval=daily",
    ]) {
      const response = await get(path);
      expect([path, response.status, response.headers.get("retry-after")]).toEqual([path, 503, "2"]);
    }
    const rpc = await fetch(`${service!.url}/logs.v1.LogsService/GetAllLogs`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ project: "p" }),
    });
    expect(rpc.status).toBe(503);
    expect(((await rpc.json()) as { code: string }).code).toBe("unavailable");
  });
});

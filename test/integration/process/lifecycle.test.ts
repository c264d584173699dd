// The service as a process, started the way `npm start` starts it: the start
// banner, a call with the printed key, a clean exit on SIGTERM, and one line
// per bad configuration variable.
import { spawn, type ChildProcess } from "node:child_process";
import { statSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServiceProcess } from "../../support/service-process.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const LONG_KEY = "lifecycle-test-key-0123";

/** Every process a test starts: one a failed test leaves running is ended after it. */
const children: ChildProcess[] = [];
const startProcess = (env: Record<string, string>) => {
  const service = startServiceProcess(env);
  children.push(service.child);
  return service;
};

/** A GET on its own connection: `sent` once the request is written to a connected socket, `status` its answer (or the error). */
function httpGet(
  url: string,
  headers: Record<string, string>,
): { sent: Promise<void>; status: Promise<number | string> } {
  let markSent!: () => void;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const status = new Promise<number | string>((resolve) => {
    const request = httpRequest(url, { headers, agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("finish", () => markSent());
    request.on("error", (error) => {
      markSent();
      resolve(String(error));
    });
    request.end();
  });
  return { sent, status };
}

async function waitFor(predicate: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A log line about a warehouse that is not there: held, not reachable, not open, cannot open. */
const warehouseDown = /holds the data directory|not reachable|unreachable|not open|cannot open/i;

const dataDirs: string[] = [];
/** A data directory for one test, removed after it. */
function dataDirectory(): string {
  const path = makeTemporaryDirectory("sqe-proc-");
  dataDirs.push(path);
  return path;
}
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }
  for (const path of dataDirs.splice(0)) removeTemporaryDirectory(path);
});

describe("service process", () => {
  it("prints its address and a generated key, answers with it, and exits 0 on SIGTERM", async () => {
    const dataDir = dataDirectory();
    const proc = startProcess({ CHDB_PATH: dataDir, PORT: "0", DEMO_DATA: "0", API_KEYS: "" });
    await waitFor(() => /API key: \S+/.test(proc.output()));
    const url = /listening on (http:\S+)/.exec(proc.output())![1]!;
    const key = /API key: (\S+)/.exec(proc.output())![1]!;
    expect(statSync(join(dataDir, "api-key")).mode & 0o777).toBe(0o600);

    const response = await fetch(`${url}/logs.v1.LogsService/GetAllLogs`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ project: "nobody" }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});

    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(proc.output()).toContain('"msg":"stopped"');
    expect(proc.output().split(key).length - 1).toBe(1); // printed once in the banner, never logged
  });

  it("starts with its server warehouse down, answers 503, says so once, and still exits 0 on SIGTERM", async () => {
    // Retries every quarter second at most: some eight of them in the two seconds watched.
    const proc = startProcess({
      PORT: "0",
      CLICKHOUSE_URL: "http://127.0.0.1:9",
      API_KEYS: LONG_KEY,
      WAREHOUSE_RETRY_SECONDS: "0.25",
    });
    await waitFor(() => /listening on (http:\S+)/.test(proc.output()));
    const url = /listening on (http:\S+)/.exec(proc.output())![1]!;
    await new Promise((r) => setTimeout(r, 2_000));
    const unreachable = proc
      .output()
      .split("\n")
      .filter((line) => warehouseDown.test(line));
    expect(unreachable).toHaveLength(1);
    expect(JSON.parse(unreachable[0]!)).toMatchObject({
      level: "warn",
      msg: "warehouse not reachable yet; answering 503 until it is",
      error: { code: "ECONNREFUSED" },
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    const response = await fetch(`${url}/api/endpoints/logs.all?project=p`, { headers: { "x-api-key": LONG_KEY } });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).not.toBeNull();
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  });

  it("keeps running while its embedded engine cannot open, says why in one line, and recovers by itself when it can", async () => {
    const dataDir = dataDirectory();
    const holder = spawn(
      process.execPath,
      [join(import.meta.dirname, "../../support/hold-data-directory.mjs"), dataDir],
      {
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    children.push(holder);
    await new Promise<void>((resolve) => holder.stdout!.once("data", () => resolve()));
    // At the default log level, with the engine reopened and the migrations retried every quarter second.
    const proc = startProcess({
      CHDB_PATH: dataDir,
      PORT: "0",
      API_KEYS: LONG_KEY,
      DEMO_DATA: "0",
      WAREHOUSE_RETRY_SECONDS: "0.25",
    });
    await waitFor(() => /listening on (http:\S+)/.test(proc.output()));
    const url = /listening on (http:\S+)/.exec(proc.output())![1]!;
    // Some eight tries of each later, before any call: one line about the held directory, and nothing
    // else about a warehouse that is not there (the migrations' retries included).
    await new Promise((r) => setTimeout(r, 2_000));
    const lines = proc.output().trim().split("\n");
    const down = lines.filter((line) => warehouseDown.test(line));
    expect(down).toHaveLength(1);
    expect(JSON.parse(down[0]!)).toEqual({
      time: expect.any(String),
      level: "warn",
      msg: "another process holds the data directory; answering 503 until it lets go",
      path: dataDir,
      pid: holder.pid,
      retryInMs: 250,
    });
    expect(
      lines.filter(
        (line) => !line.startsWith("{") && !/^saved-query endpoints listening on |^API key|^credentials: /.test(line),
      ),
    ).toEqual([]);

    const query = () => fetch(`${url}/api/endpoints/logs.all?project=p`, { headers: { "x-api-key": LONG_KEY } });
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    const refused = await query();
    expect([refused.status, refused.headers.get("retry-after")]).toEqual([503, "2"]);

    holder.kill("SIGTERM");
    await new Promise((resolve) => holder.once("exit", resolve));
    let ready = 0;
    for (let i = 0; i < 100 && ready !== 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      ready = (await fetch(`${url}/readyz`)).status;
    }
    expect(ready).toBe(200);
    expect((await query()).status).toBe(200);
    // Each retrying part ends its streak with one line saying how many tries failed: the two seconds above held several.
    const recovered = proc
      .output()
      .split("\n")
      .filter((line) => /"msg":"(embedded warehouse open|warehouse reachable, schema up to date)"/.test(line))
      .map((line) => JSON.parse(line) as { msg: string; failedTries: number });
    // Held from the start, the engine had never been open: it opened, not "open again".
    expect(recovered.map((line) => line.msg).sort()).toEqual([
      "embedded warehouse open",
      "warehouse reachable, schema up to date",
    ]);
    for (const line of recovered) expect(line.failedTries).toBeGreaterThanOrEqual(4);
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  });

  it("finishes every call in flight when SIGTERM arrives under load", async () => {
    const dataDir = dataDirectory();
    const proc = startProcess({
      CHDB_PATH: dataDir,
      PORT: "0",
      API_KEYS: LONG_KEY,
      DEMO_DATA: "1",
      LOG_LEVEL: "warn",
      WAREHOUSE_CALLS_PER_KEY: "64",
    });
    await waitFor(() => /listening on (http:\S+)/.test(proc.output()));
    const url = /listening on (http:\S+)/.exec(proc.output())![1]!;
    // 60 uncached queries at once (under the 64 queued bound, one key allowed all of them): most of a second of work.
    const sent: Promise<void>[] = [];
    let answered = 0;
    const calls = Array.from({ length: 60 }, (_, i) => {
      const call = httpGet(`${url}/api/endpoints/logs.all?project=p${i}&project_tier=PRO`, { "x-api-key": LONG_KEY });
      sent.push(call.sent);
      void call.status.then(() => answered++);
      return call.status;
    });
    // Every request connected and written (so a loaded machine cannot leave one unsent), then one round trip
    // the server answers without the warehouse: by its answer the server has accepted and read every request
    // sent before it (a fixed pause was not always enough on a loaded machine: a connection the server has not
    // accepted yet when SIGTERM comes is refused).
    await Promise.all(sent);
    expect(await httpGet(`${url}/no-such-page`, {}).status).toBe(404);
    // Calls still in flight when the signal comes, or the test would show nothing.
    expect(answered).toBeLessThan(60);
    proc.child.kill("SIGTERM");
    expect(await Promise.all(calls)).toEqual(Array(60).fill(200));
    expect(await proc.exited).toBe(0);
  });

  it("refuses to start with one line per bad variable, a guessable key among them", async () => {
    const proc = startProcess({ PORT: "99999", CLICKHOUSE_URL: "nope", API_KEYS: `${LONG_KEY},short` });
    expect(await proc.exited).toBe(1);
    expect(proc.output().trim().split("\n")).toEqual([
      'configuration error: PORT must be an integer from 0 to 65535, got "99999"',
      'configuration error: CLICKHOUSE_URL must be an http:// or https:// URL, got "nope"',
      "configuration error: API_KEYS key 2 is 5 characters long; keys need at least 16",
    ]);
  });
});

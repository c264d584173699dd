// The HTTP/2 streams open at once from one address (MAX_STREAMS_PER_ADDRESS),
// through real clients: h2load's many connections from one address within
// the budget see no refused stream, and a raw HTTP/2 client past it has its
// extra streams refused (REFUSED_STREAM) before any handler ran for them.
import { spawn, spawnSync } from "node:child_process";
import { type ClientHttp2Session, connect as connectHttp2, constants } from "node:http2";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parseH2loadOutput } from "../../../bench/h2load.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const hitPath = "/api/endpoints/usage.api-counts?project=rpc&interval=daily";
const callPath = "/usage.v1.UsageService/GetApiCounts";
const h2loadMissing = spawnSync("h2load", ["--version"]).status !== 0;

let warehouse: Warehouse;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
});
afterAll(async () => warehouse?.close());

/** h2load's summary of `requests` GETs of `url` on `clients` connections of `streams` streams each. */
function h2load(url: string, clients: number, streams: number, requests: number) {
  const args = ["-n", String(requests), "-c", String(clients), "-m", String(streams), "-t", "1"];
  const child = spawn("h2load", [...args, "-H", `x-api-key: ${TEST_API_KEY}`, url], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  return new Promise<ReturnType<typeof parseH2loadOutput>>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(parseH2loadOutput(out)) : reject(new Error(`h2load exited ${code}: ${out}`)),
    );
  });
}

/** The Connect calls of GetApiCounts handled, whatever their code, as /metrics counts them. */
async function callsHandled(server: TestServer): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const counts = text.matchAll(
    /^sqe_requests_total\{endpoint="usage.api-counts",protocol="connect",code="\w+"\} (\d+)$/gm,
  );
  return [...counts].reduce((sum, [, count]) => sum + Number(count), 0);
}

describe.skipIf(h2loadMissing)(
  `many connections of one address within the budget${h2loadMissing ? " (skipped: h2load is not installed; apt-get install nghttp2-client)" : ""}`,
  () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer(warehouse, NOW);
      expect((await fetch(`${server.url}${hitPath}`, { headers: { "x-api-key": TEST_API_KEY } })).status).toBe(200);
    });
    afterAll(() => server?.close());

    // 128 streams open at once, far within the default budget of 1,024, on more connections than its tenth.
    it.each([
      [32, 4, 4_000],
      [64, 2, 2_000],
    ])(
      "answers every call of %i connections x %i streams from one address, none refused",
      async (clients, streams, requests) => {
        const summary = await h2load(`${server.url}${hitPath}`, clients, streams, requests);
        expect({ succeeded: summary.succeeded, failed: summary.failed, errored: summary.errored }).toEqual({
          succeeded: requests,
          failed: 0,
          errored: 0,
        });
        expect(summary.statuses["2xx"]).toBe(requests);
      },
    );
  },
);

describe("streams of one address past the budget", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(warehouse, NOW, {}, { maxStreamsPerAddress: 8 });
  });
  afterAll(() => server?.close());

  /**
   * A Connect call of GetApiCounts on `session` whose body is sent but not ended, so that its stream stays open
   * until `end`; `outcome` is its status once answered, or the stream's reset code.
   */
  function heldCall(session: ClientHttp2Session) {
    const stream = session.request(
      { ":method": "POST", ":path": callPath, "content-type": "application/json", "x-api-key": TEST_API_KEY },
      { endStream: false },
    );
    stream.on("error", () => {});
    stream.resume();
    stream.write(JSON.stringify({ project: "rpc", interval: "daily" }));
    const outcome = new Promise<{ status?: number; resetCode?: number }>((resolve) => {
      stream.once("response", (headers) => resolve({ status: Number(headers[":status"]) }));
      stream.once("close", () => resolve({ resetCode: stream.rstCode }));
    });
    return { stream, outcome, end: () => stream.end() };
  }

  it("refuses the streams past the budget before their handler runs, and takes new ones once others close", async () => {
    const before = await callsHandled(server);
    const sessions = Array.from({ length: 3 }, () => connectHttp2(server.url));
    // Five held calls on each of three connections: fifteen streams asked, eight within the budget.
    const held = sessions.flatMap((session) => Array.from({ length: 5 }, () => heldCall(session)));
    await vi.waitFor(() => expect(held.filter(({ stream }) => stream.closed)).toHaveLength(7));
    await new Promise((resolve) => setTimeout(resolve, 200)); // and no more
    const refused = held.filter(({ stream }) => stream.closed);
    const open = held.filter(({ stream }) => !stream.closed);
    expect(refused.map(({ stream }) => stream.rstCode)).toEqual(Array(7).fill(constants.NGHTTP2_REFUSED_STREAM));
    expect(open).toHaveLength(8);
    // Another address is not bound by this one's budget.
    const [host, port] = server.address.split(":");
    const other = connectHttp2(server.url, {
      createConnection: () => connect({ host: host!, port: Number(port), localAddress: "127.0.0.2" }),
    });
    const fromOther = heldCall(other);
    fromOther.end();
    expect(await fromOther.outcome).toEqual({ status: 200 });
    // The eight open calls are answered once their bodies end; the seven refused never reached a handler.
    for (const call of open) call.end();
    expect(await Promise.all(open.map(({ outcome }) => outcome))).toEqual(Array(8).fill({ status: 200 }));
    expect((await callsHandled(server)) - before).toBe(9);
    // Streams that close give their place back.
    await vi.waitFor(() => expect(open.every(({ stream }) => stream.closed)).toBe(true));
    const again = sessions.flatMap((session) => Array.from({ length: 2 }, () => heldCall(session)));
    for (const call of again) call.end();
    expect(await Promise.all(again.map(({ outcome }) => outcome))).toEqual(Array(6).fill({ status: 200 }));
    for (const session of [...sessions, other]) session.destroy();
  });
});

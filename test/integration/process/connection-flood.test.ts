// The service as a process under a flood of connections that send only the
// HTTP/2 preface: the open-connection bound keeps descriptors free, the
// first-request bound frees the held ones, and a client on a connection it
// already had is answered quickly throughout.
import { spawn } from "node:child_process";
import { connect as connectHttp2 } from "node:http2";
import { afterAll, describe, expect, it } from "vitest";
import { startServiceProcess } from "../../support/service-process.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

/**
 * Attempts `count` connections to host:port, at most `most` at once, each
 * sending only the HTTP/2 preface and then waiting for the server to close it.
 */
const floodScript = `
import { connect } from "node:net";
const [host, port, count, most] = process.argv.slice(1);
let attempted = 0, closed = 0;
const inFlight = new Set();
while (attempted < Number(count)) {
  attempted += 1;
  const attempt = new Promise((resolve) => {
    const socket = connect(Number(port), host, () => socket.write("PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n"));
    socket.on("error", () => {});
    socket.on("close", () => { closed += 1; resolve(); });
    socket.resume();
  });
  inFlight.add(attempt);
  attempt.then(() => inFlight.delete(attempt));
  if (inFlight.size >= Number(most)) await Promise.race(inFlight);
}
await Promise.all(inFlight);
process.stdout.write(JSON.stringify({ attempted, closed }));
`;
const dataDir = makeTemporaryDirectory("sqe-flood-");
afterAll(() => removeTemporaryDirectory(dataDir));

describe("a flood of preface-only connections", () => {
  it("answers /healthz within a second on an open connection while 20,000 are attempted", async () => {
    const service = startServiceProcess({
      CHDB_PATH: dataDir,
      PORT: "0",
      DEMO_DATA: "0",
      API_KEYS: "flood-test-key-0123456789",
      LOG_LEVEL: "warn",
      MAX_CONNECTIONS: "1000",
      FIRST_REQUEST_TIMEOUT_SECONDS: "2",
    });
    try {
      const url = await service.listening();
      const { hostname, port } = new URL(url);

      // The prober's connection is open before the flood starts.
      const session = connectHttp2(url);
      const probe = () =>
        new Promise<number>((resolve, reject) => {
          const started = Date.now();
          const stream = session.request({ ":path": "/healthz" });
          stream.on("response", (headers) => {
            if (headers[":status"] !== 200) reject(new Error(`status ${headers[":status"]}`));
            resolve(Date.now() - started);
          });
          stream.on("error", reject);
          stream.resume();
          stream.end();
        });
      await probe();

      // The flood comes from a process of its own, as an attacker's would.
      const flooder = spawn(
        process.execPath,
        ["--input-type=module", "-e", floodScript, hostname, port, "20000", "1500"],
        {
          stdio: ["ignore", "pipe", "inherit"],
        },
      );
      let report = "";
      flooder.stdout!.on("data", (d: Buffer) => (report += d.toString()));
      let flooding = true;
      const flood = new Promise<void>((resolve) => flooder.once("exit", () => resolve())).then(
        () => void (flooding = false),
      );
      const latencies: number[] = [];
      while (flooding) {
        latencies.push(await probe());
        await new Promise((r) => setTimeout(r, 50));
      }
      await flood;
      expect(JSON.parse(report)).toEqual({ attempted: 20_000, closed: 20_000 });
      expect(latencies.length).toBeGreaterThan(5);
      expect(Math.max(...latencies)).toBeLessThan(1000);
      // Once the held connections are freed, a new connection is served again.
      const fresh = await fetch(`${url}/healthz`);
      expect(fresh.status).toBe(200);
      session.close();
    } finally {
      await service.stop();
    }
  }, 180_000); // 20,000 connections on a loaded machine can take longer than the default minute
});

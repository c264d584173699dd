// Every per-address bound counts an IPv6 client by its /64: three addresses
// of one /64, in a network namespace of their own, share one bound of open
// connections, of watch streams and of HTTP/2 streams, as one address would.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import type { PrefixJob } from "../../support/prefix-clients.js";
import { openPrefixNamespace, type PrefixNamespace } from "../../support/prefix-namespace.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const namespace = openPrefixNamespace();
const reason = typeof namespace === "string" ? namespace : undefined;
const clientScript = join(import.meta.dirname, "../../support/prefix-clients.ts");

let warehouse: Warehouse;
let space: PrefixNamespace;
const servers: TestServer[] = [];
beforeAll(async () => {
  if (typeof namespace === "string") return;
  space = namespace;
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await warehouse?.close();
  if (typeof namespace !== "string") namespace.close();
});

/** A server on the namespace's outer address with these options (test-server.ts). */
async function serve(
  ...options: Parameters<typeof startTestServer> extends [unknown, unknown, ...infer R] ? R : never
) {
  const [appOptions, serverOptions] = options;
  const server = await startTestServer(warehouse, NOW, appOptions, { ...serverOptions, host: space.serverAddress });
  servers.push(server);
  return { host: space.serverAddress, port: Number(new URL(server.url).port) };
}

/** Runs `job` from inside the namespace and gives its outcome. */
async function fromPrefix<T>(job: PrefixJob): Promise<T> {
  const stdout = await space.run([process.execPath, "--import", "tsx", clientScript, JSON.stringify(job)]);
  return JSON.parse(stdout) as T;
}

describe.skipIf(reason !== undefined)(
  `three addresses of one /64${reason === undefined ? "" : ` (skipped: ${reason})`}`,
  () => {
    it("share one bound of open connections: four of six answered with MAX_CONNECTIONS_PER_ADDRESS 4", async () => {
      const target = await serve({}, { maxConnectionsPerAddress: 4 });
      const outcomes = await fromPrefix<string[]>({
        kind: "connections",
        ...target,
        from: space.clientAddresses,
        perAddress: 2,
      });
      // Two from each address in turn: the first two addresses fill the bound, the third's are refused.
      expect(outcomes).toEqual(["200", "200", "200", "200", "refused", "refused"]);
    });

    it("share one bound of watch streams: the third is 429 with MAX_WATCH_STREAMS_PER_ADDRESS 2", async () => {
      const target = await serve({ watch: { bounds: { maxStreams: 100, perCaller: 100, perAddress: 2 } } });
      const statuses = await fromPrefix<number[]>({
        kind: "event-streams",
        ...target,
        from: space.clientAddresses,
        path: "/api/endpoints/usage.api-counts?project=rpc&interval=hourly",
        key: TEST_API_KEY,
      });
      expect(statuses).toEqual([200, 200, 429]);
    });

    it("share one budget of HTTP/2 streams: two of six refused with MAX_STREAMS_PER_ADDRESS 4", async () => {
      const target = await serve({}, { maxStreamsPerAddress: 4 });
      const outcome = await fromPrefix<{ refused: number; answered: number }>({
        kind: "held-calls",
        ...target,
        from: space.clientAddresses,
        perSession: 2,
        path: "/usage.v1.UsageService/GetApiCounts",
        key: TEST_API_KEY,
        body: JSON.stringify({ project: "rpc", interval: "daily" }),
      });
      expect(outcome).toEqual({ refused: 2, answered: 4 });
    });
  },
);

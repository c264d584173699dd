// Calls that carry no credential at all (CORS preflights, no-cors requests,
// a caller that forgot its key) are refused, never counted as failed
// authentications: only a key presented and wrong is, on every transport.
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

let warehouse: Warehouse;
let server: TestServer;
// The pinned clock never refills the bucket: a burst of 3 is all the address ever gets.
const authFailures = { perSecond: 1, burst: 3 };
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  server = await startTestServer(warehouse, NOW, { authFailures });
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});

const rpcPath = "/logs.v1.LogsService/GetAllLogs";

describe("calls without a credential", () => {
  it("never lock the address out, over GET, Connect, gRPC and preflights; a wrong key still does", async () => {
    const keyed = { "x-api-key": TEST_API_KEY };
    // Ten times the burst of each kind without any key.
    for (let i = 0; i < 30; i++) {
      // A preflight of an RPC path and of a GET path (the gate may answer it before authentication, or refuse it).
      const preflight = await fetch(`${server.url}${rpcPath}`, {
        method: "OPTIONS",
        headers: { origin: "https://page.example", "access-control-request-method": "POST" },
      });
      expect(preflight.status).not.toBe(429);
      expect((await fetch(`${server.url}/api/endpoints/logs.all?project=rpc`)).status).toBe(401);
      const connect = await fetch(`${server.url}${rpcPath}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(connect.status).toBe(401);
    }
    const grpc = createClient(LogsService, createGrpcTransport({ baseUrl: server.url }));
    for (let i = 0; i < 10; i++) await expect(grpc.getAllLogs({ project: "rpc" })).rejects.toThrow(/unauthenticated/i);
    // The right key is still served.
    expect((await fetch(`${server.url}/api/endpoints/logs.all?project=rpc`, { headers: keyed })).status).toBe(200);
    const connectClient = createClient(
      LogsService,
      createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }),
    );
    await expect(connectClient.getAllLogs({ project: "rpc" }, { headers: keyed })).resolves.toBeDefined();
    // Three wrong keys spend the burst, and then the address is refused, a right key included.
    for (let i = 0; i < 3; i++) {
      const wrong = await fetch(`${server.url}/api/endpoints/logs.all?project=rpc`, {
        headers: { "x-api-key": `wrong-key-${i}-0123456789` },
      });
      expect(wrong.status).toBe(401);
    }
    expect((await fetch(`${server.url}/api/endpoints/logs.all?project=rpc`, { headers: keyed })).status).toBe(429);
  });
});

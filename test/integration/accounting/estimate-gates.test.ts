// The estimate of a call passes the same gates as the query it estimates,
// through the real server: while the schema is not in place a dry run (GET
// and Connect) and a miss under a rows limit answer 503 unavailable as the
// query does, not an estimate or a refusal by it; and the fail-fast gate is
// one for both, so a dry run after the warehouse was found unreachable does
// not try it again, and a query after a dry run found it so does not either.
import { createServer, type Server, type Socket } from "node:net";
import { ClickHouseLogLevel, createClient as createClickHouseClient } from "@clickhouse/client";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const headers = { "x-api-key": TEST_API_KEY };
const unavailable = { error: { code: "unavailable", message: "warehouse unavailable, try again later", details: [] } };

/** Status, Retry-After and JSON body of a GET of logs.all for `query`. */
async function getLogs(server: TestServer, query: string) {
  const response = await fetch(`${server.url}/api/endpoints/logs.all?${query}`, { headers });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.json() };
}

describe("while the schema is not in place", () => {
  let warehouse: Warehouse;
  let server: TestServer;
  let schemaReady = false;
  beforeAll(async () => {
    warehouse = await openTestWarehouse();
    await insertScenario(warehouse);
    // A rows limit of 1: every miss of logs.all is estimated, and its estimate passes the limit.
    server = await startTestServer(warehouse, NOW, {
      schemaReady: () => schemaReady,
      readLimits: { maxRowsToRead: 1 },
    });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await warehouse?.close();
  });

  it("answers a miss under a rows limit 503 unavailable, not a refusal by its estimate", async () => {
    schemaReady = false;
    expect(await getLogs(server, "project=rpc")).toEqual({ status: 503, retryAfter: "2", body: unavailable });
  });

  it("answers a dry run 503 unavailable on GET and Connect, as the query itself", async () => {
    schemaReady = false;
    expect(await getLogs(server, "project=rpc&dry_run=1")).toEqual({ status: 503, retryAfter: "2", body: unavailable });
    const rpc = createClient(LogsService, createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }));
    const refusal = await rpc
      .getAllLogs({ project: "rpc" }, { headers: { ...headers, "x-dry-run": "1" } })
      .then(() => undefined, ConnectError.from);
    expect(refusal?.code).toBe(Code.Unavailable);
  });

  it("estimates the same calls once the schema is in place", async () => {
    schemaReady = true;
    const dryRun = await getLogs(server, "project=rpc&dry_run=1");
    expect(dryRun.status).toBe(200);
    const rows = (dryRun.body as { estimate: { rows: number } }).estimate.rows;
    expect(rows).toBeGreaterThan(1);
    const refused = await getLogs(server, "project=rpc");
    expect(refused.status).toBe(429);
    expect((refused.body as { error: { code: string; message: string } }).error.message).toContain(
      `(estimated ${rows} rows`,
    );
  });
});

/** A server whose warehouse is a port that accepts and at once drops every connection, counting them. */
async function startDownServer(): Promise<{ server: TestServer; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const listener: Server = createServer((socket: Socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
  const port = (listener.address() as { port: number }).port;
  const client = createClickHouseClient({ url: `http://127.0.0.1:${port}`, log: { level: ClickHouseLogLevel.OFF } });
  const server = await startTestServer({ client, kind: "server", location: "", close: () => client.close() }, NOW);
  return {
    server,
    connections: () => connections,
    close: async () => {
      await server.close();
      await new Promise<void>((r) => listener.close(() => r()));
    },
  };
}

describe("one fail-fast gate for the query and its estimate", () => {
  const down: Awaited<ReturnType<typeof startDownServer>>[] = [];
  afterAll(async () => {
    await Promise.all(down.map((d) => d.close()));
  });
  /** A down server of its own, closed after the tests: each test starts with the gate open. */
  async function started() {
    const server = await startDownServer();
    down.push(server);
    return server;
  }

  it("answers a dry run at once, without trying the warehouse, after a query found it unreachable", async () => {
    const { server, connections } = await started();
    expect(await getLogs(server, "project=rpc")).toEqual({ status: 503, retryAfter: "2", body: unavailable });
    const tried = connections();
    expect(tried).toBeGreaterThan(0);
    expect(await getLogs(server, "project=x&dry_run=1")).toEqual({ status: 503, retryAfter: "2", body: unavailable });
    expect(connections()).toBe(tried); // within the cooldown nothing was sent
  });

  it("answers a query at once, without trying the warehouse, after a dry run found it unreachable", async () => {
    const { server, connections } = await started();
    expect(await getLogs(server, "project=rpc&dry_run=1")).toEqual({
      status: 503,
      retryAfter: "2",
      body: unavailable,
    });
    const tried = connections();
    expect(tried).toBeGreaterThan(0);
    expect(await getLogs(server, "project=x")).toEqual({ status: 503, retryAfter: "2", body: unavailable });
    expect(connections()).toBe(tried);
  });
});

// Rows that do not fit the row message (SQL and proto out of step) are the
// service's bug: INTERNAL with a fixed message on every transport, and one
// error line in the log naming the saved query, with the converter's error as
// the cause.
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import { createLogger } from "../../../src/observability/index.js";
import { readSavedQuerySql, type Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { allClients, type RpcClient } from "../../support/rpc-clients.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

// logs.all with `metadata` as text that is not a JSON array: every row fails to convert.
const mismatchedSql = `SELECT id, timestamp, event_message, 'not json' AS metadata FROM edge_logs
  WHERE project = {project:String} AND {project_tier:String} IN ('FREE', 'PRO', 'PAYG', 'ENTERPRISE')
    AND {iso_timestamp_start:Nullable(String)} IS NULL AND {iso_timestamp_end:Nullable(String)} IS NULL AND {cursor_timestamp:Nullable(String)} IS NULL AND {cursor_id:Nullable(String)} IS NULL
    AND {now:DateTime64(6, 'UTC')} IS NOT NULL`;

let warehouse: Warehouse;
let server: TestServer;
let lines: Record<string, unknown>[] = [];
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  const logger = createLogger({ write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  server = await startTestServer(warehouse, NOW, {
    logger,
    readSql: (name) => (name === "logs.all" ? mismatchedSql : readSavedQuerySql(name)),
  });
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});
beforeEach(() => {
  lines = [];
});

/** The error lines logged, with their cause. */
function errorLines() {
  return lines.filter((line) => line.level === "error");
}

describe("rows that do not fit the row message", () => {
  it("answers a GET with 500 internal and no converter text, and logs the cause at error", async () => {
    const response = await fetch(`${server.url}/api/endpoints/logs.all?project=rpc`, {
      headers: { "x-api-key": TEST_API_KEY },
    });
    expect(response.status).toBe(500);
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({ error: { code: "internal", message: "internal error", details: [] } });
    expect(body).not.toMatch(/json|metadata|column/i);
    const errors = errorLines();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      msg: "get failed",
      endpoint: "logs.all",
      protocol: "http",
      cause: { name: "SyntaxError" },
    });
  });

  it.each(["connect", "connect over h2c", "grpc", "grpc-web", "@grpc/grpc-js"])(
    "answers %s with INTERNAL and a fixed message, logged at error",
    async (name) => {
      const clients = allClients(server.url, server.address);
      const client: RpcClient = clients.find((c) => c.name === name)!;
      try {
        const outcome = await client.call(
          LogsService,
          LogsService.method.getAllLogs,
          create(LogsService.method.getAllLogs.input, { project: "rpc" }),
          {
            headers: { "x-api-key": TEST_API_KEY },
          },
        );
        expect(outcome).toMatchObject({ ok: false, code: Code.Internal, message: "internal error" });
      } finally {
        for (const c of clients) c.close();
      }
      const errors = errorLines();
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({
        msg: "call failed",
        endpoint: "logs.all",
        code: "Internal",
        cause: { name: "SyntaxError" },
      });
    },
  );
});

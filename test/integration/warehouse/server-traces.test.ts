// On a ClickHouse server, a warehouse query carries the `traceparent` of its
// span, and the server's own spans (system.opentelemetry_span_log) join the
// same trace as its children. Runs only when CLICKHOUSE_URL is set; the
// server needs its span log table (on in the default configuration) and a
// user allowed SYSTEM FLUSH LOGS (docs/observability.md).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createQueryExecutor } from "../../../src/executor/index.js";
import { openWarehouse, type Warehouse } from "../../../src/warehouse/index.js";
import { recordingTracing } from "../../support/recording-tracing.js";
import { serverCredentials } from "../../support/server-credentials.js";

const url = process.env.CLICKHOUSE_URL;

describe.skipIf(url === undefined)("traces on a ClickHouse server (skipped: CLICKHOUSE_URL is not set)", () => {
  let warehouse: Warehouse;
  beforeAll(async () => {
    warehouse = await openWarehouse({ kind: "server", url: url!, ...serverCredentials, database: "default" });
  });
  afterAll(async () => warehouse?.close());

  it("records the server's spans of a query as children of the query's span, in the caller's trace", async () => {
    const tracing = recordingTracing();
    const executor = createQueryExecutor({ client: warehouse.client, tracing, propagateTrace: true });
    const call = tracing.startCall("test.count", () => undefined, {});
    const result = await tracing.within(call, () =>
      executor.execute({ name: "test.count", sql: "SELECT sum(number) AS n FROM numbers(1000)", maxRows: 1 }, {}),
    );
    const span = tracing.spans.find((s) => s.name === "warehouse query")!;
    expect(span.attributes["clickhouse.query_id"]).toBe(result.queryId);

    await warehouse.client.command({ query: "SYSTEM FLUSH LOGS" });
    const answer = await warehouse.client.query({
      query: `SELECT operation_name, toString(parent_span_id) AS parent, attribute['clickhouse.query_id'] AS query_id
              FROM system.opentelemetry_span_log
              WHERE lower(replaceAll(toString(trace_id), '-', '')) = {trace:String}`,
      query_params: { trace: tracing.traceId },
      format: "JSONEachRow",
    });
    const rows = await answer.json<{ operation_name: string; parent: string; query_id: string }>();
    // The server's spans of the query hang below the warehouse query's span (span ids are UInt64 there).
    const children = rows.filter((row) => BigInt(row.parent) === BigInt(`0x${span.id}`));
    expect(children.length).toBeGreaterThan(0);
    expect(rows.some((row) => row.query_id === result.queryId)).toBe(true);
  });
});

// Rows and bytes read, from a ClickHouse server's X-ClickHouse-Summary header.
import { describe, expect, it } from "vitest";
import { statisticsFromHeaders } from "../../src/executor/query-statistics.js";

describe("query statistics from response headers", () => {
  it("reads read_rows and read_bytes from the summary header", () => {
    const summary =
      '{"read_rows":"12345","read_bytes":"678901","written_rows":"0","written_bytes":"0","total_rows_to_read":"12345","result_rows":"100","result_bytes":"3000","elapsed_ns":"4000000"}';
    expect(statisticsFromHeaders({ "x-clickhouse-summary": summary })).toEqual({ rowsRead: 12345, bytesRead: 678901 });
  });

  it("reports nothing when there is no summary, as on the embedded engine", () => {
    expect(statisticsFromHeaders({})).toBeUndefined();
    expect(statisticsFromHeaders(undefined)).toBeUndefined();
  });

  it("reports nothing for a summary it cannot read", () => {
    expect(statisticsFromHeaders({ "x-clickhouse-summary": "not json" })).toBeUndefined();
    expect(statisticsFromHeaders({ "x-clickhouse-summary": '{"read_rows":"12"}' })).toBeUndefined();
    expect(statisticsFromHeaders({ "x-clickhouse-summary": '{"read_rows":"-1","read_bytes":"5"}' })).toBeUndefined();
  });
});

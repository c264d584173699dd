// service.call-stats over the embedded warehouse with a pinned clock: calls
// recorded through the call log, then read back by bucket and saved query,
// with counts, percentiles and reads worked out by hand; a caller whose
// scope fixes `caller` sees only its own calls.
import { create } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import type { CallStatsRow } from "../../../src/gen/calls/v1/calls_pb.js";
import { migrate, createCallLog, type CallLogRow } from "../../../src/warehouse/index.js";
import type { Scope } from "../../../src/endpoints/index.js";
import { useQueryStack } from "../../support/query-stack.js";
import { HOUR, MINUTE } from "../../support/time.js";

const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);
const ELEVEN = Date.UTC(2026, 10, 20, 11);
const NOON = Date.UTC(2026, 10, 20, 12);

const setup = useQueryStack(NOW);

type Call = [
  caller: string,
  endpoint: string,
  agoMs: number,
  durationMs: number,
  code: string,
  cache: CallLogRow["cache"],
  rowsRead: number,
];

// Every call reads ten bytes per row.
const calls: Call[] = [
  ["tenant-a", "usage.api-counts", 50 * MINUTE, 10, "ok", "miss", 100], // 11:44:56
  ["tenant-a", "usage.api-counts", 40 * MINUTE, 20, "ok", "hit", 100], // 11:54:56
  ["tenant-a", "usage.api-counts", 30 * MINUTE, 30, "internal", "none", 0], // 12:04:56
  ["tenant-a", "logs.all", 45 * MINUTE, 40, "ok", "none", 7], // 11:49:56
  ["tenant-b", "usage.api-counts", 35 * MINUTE, 50, "ok", "stale", 5], // 11:59:56
  ["tenant-b", "usage.api-counts", 2 * HOUR, 1000, "ok", "miss", 1], // 10:34:56, outside the hourly window
  ["tenant-b", "logs.all", 10 * MINUTE, 60, "ok", "miss", 3], // 12:24:56
];

beforeAll(async () => {
  const log = createCallLog(setup.warehouse().client, { flushMs: 60_000 });
  for (const [i, [caller, endpoint, ago, durationMs, code, cache, rowsRead]] of calls.entries()) {
    log.record({
      requestId: `req-${i}`,
      endpoint,
      caller,
      protocol: i % 2 === 0 ? "get" : "grpc",
      code,
      cache,
      rowsRead,
      bytesRead: rowsRead * 10,
      durationMs,
      responseBytes: 100,
      at: NOW - ago,
    });
  }
  await log.close();
});

async function callStats(params: Record<string, string>, scope?: Scope): Promise<CallStatsRow[]> {
  const { registry, service } = setup.stack();
  const endpoint = registry.find("service.call-stats")!;
  const request = create(endpoint.method.input, params as never);
  const result = await service.run(endpoint, request, undefined, scope);
  return (result.message() as unknown as { result: CallStatsRow[] }).result;
}

/** [bucket start, endpoint, calls, errors, cache hits, p50, p95, rows read, bytes read] */
const summary = (r: CallStatsRow) => [
  timestampMs(r.timestamp!),
  r.endpoint,
  Number(r.calls),
  Number(r.errors),
  Number(r.cacheHits),
  r.p50DurationMs,
  Number(r.p95DurationMs.toFixed(6)),
  Number(r.rowsRead),
  Number(r.bytesRead),
];

describe("service.call-stats", () => {
  it("counts every caller's calls of the last hour by hour and saved query, ascending", async () => {
    // 11:00 usage.api-counts: 10, 20, 50 ms; p95 at 0.95 * 2 = 1.9 between 20 and 50: 20 + 0.9 * 30 = 47.
    expect((await callStats({ interval: "hourly" })).map(summary)).toEqual([
      [ELEVEN, "logs.all", 1, 0, 0, 40, 40, 7, 70],
      [ELEVEN, "usage.api-counts", 3, 0, 2, 20, 47, 205, 2050],
      [NOON, "logs.all", 1, 0, 0, 60, 60, 3, 30],
      [NOON, "usage.api-counts", 1, 1, 0, 30, 30, 0, 0],
    ]);
  });

  it("counts the last seven days by day, and one saved query when asked", async () => {
    const day = Date.UTC(2026, 10, 20);
    // usage.api-counts: 10, 20, 30, 50, 1000 ms; p95 at 0.95 * 4 = 3.8 between 50 and 1000: 50 + 0.8 * 950 = 810.
    expect((await callStats({ interval: "daily" })).map(summary)).toEqual([
      [day, "logs.all", 2, 0, 0, 50, 59, 10, 100],
      [day, "usage.api-counts", 5, 1, 2, 30, 810, 206, 2060],
    ]);
    const minutely = await callStats({ interval: "minutely", endpoint: "logs.all" });
    expect(minutely.map((r) => [timestampMs(r.timestamp!), r.endpoint])).toEqual([
      [NOW - 45 * MINUTE - 56_789, "logs.all"],
      [NOW - 10 * MINUTE - 56_789, "logs.all"],
    ]);
  });

  it("shows a caller whose scope fixes caller its own calls only, and refuses it another's", async () => {
    const scope: Scope = { fixed: { caller: "tenant-a" } };
    // 11:00 usage.api-counts: 10, 20 ms; p50 15, p95 10 + 0.95 * 10 = 19.5.
    expect((await callStats({ interval: "hourly" }, scope)).map(summary)).toEqual([
      [ELEVEN, "logs.all", 1, 0, 0, 40, 40, 7, 70],
      [ELEVEN, "usage.api-counts", 2, 0, 1, 15, 19.5, 200, 2000],
      [NOON, "usage.api-counts", 1, 1, 0, 30, 30, 0, 0],
    ]);
    expect((await callStats({ interval: "hourly", caller: "tenant-a" }, scope)).length).toBe(3);
    const refused = await callStats({ interval: "hourly", caller: "tenant-b" }, scope).catch((e: unknown) => e);
    expect(ConnectError.from(refused).code).toBe(Code.PermissionDenied);
    expect(
      (await callStats({ interval: "hourly", caller: "tenant-b" })).map((r) => [r.endpoint, Number(r.calls)]),
    ).toEqual([
      ["usage.api-counts", 1],
      ["logs.all", 1],
    ]);
  });

  it("refuses an interval it does not know, naming it", async () => {
    const refused = await callStats({ interval: "weekly" }).catch((e: unknown) => e);
    expect(ConnectError.from(refused).code).toBe(Code.InvalidArgument);
    expect(ConnectError.from(refused).rawMessage).toContain("interval must be one of hourly, daily, minutely");
  });

  it("keeps the configured retention as the tables' TTL, changing it only when it differs", async () => {
    const client = setup.warehouse().client;
    const ttl = async (table: string) => {
      const result = await client.query({
        query: "SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = {table:String}",
        query_params: { table },
        format: "JSONEachRow",
      });
      return /TTL (.*?)( SETTINGS|$)/.exec((await result.json<{ engine_full: string }>())[0]!.engine_full)?.[1];
    };
    const ttls = async () => [await ttl("service_call_aggregates"), await ttl("service_calls")];
    expect(await ttls()).toEqual(Array(2).fill("toDateTime(timestamp) + toIntervalDay(30)"));
    await migrate(client, { callLogRetentionDays: 7 });
    expect(await ttls()).toEqual(Array(2).fill("toDateTime(timestamp) + toIntervalDay(7)"));
    await migrate(client, { callLogRetentionDays: 30 });
    expect(await ttls()).toEqual(Array(2).fill("toDateTime(timestamp) + toIntervalDay(30)"));
  });
});

// usage.api-counts over the embedded warehouse with a pinned clock: windows,
// buckets, the URL regular expression and the per-area totals.
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { fieldViolationsOf } from "../../../src/errors/index.js";
import type { ApiCountsRow } from "../../../src/gen/usage/v1/usage_pb.js";
import { edgeRow, insertRows, ts } from "../../support/embedded-warehouse.js";
import { useQueryStack } from "../../support/query-stack.js";
import { DAY, HOUR, MINUTE, trunc } from "../../support/time.js";

const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);

const setup = useQueryStack(NOW);

const run = (params: Record<string, string>) => setup.stack().run<ApiCountsRow>("usage.api-counts", params);
const totals = (r: ApiCountsRow) => [
  r.totalRestRequests,
  r.totalStorageRequests,
  r.totalAuthRequests,
  r.totalRealtimeRequests,
];

describe("usage.api-counts windows", () => {
  it.each([
    ["hourly", HOUR, HOUR],
    ["daily", 7 * DAY, DAY],
    ["minutely", HOUR, MINUTE],
  ] as const)("%s counts records from now - window on, bucketed by its unit", async (interval, window, bucket) => {
    const project = `window${interval}`;
    const start = NOW - window;
    await insertRows(setup.warehouse(), "edge_logs", [
      edgeRow({ project, timestamp: ts(start) }), // at the window start, included
      edgeRow({ project, timestamp: ts(start - 1, 999) }), // a microsecond earlier, excluded
      edgeRow({ project, timestamp: ts(NOW - 1) }),
      edgeRow({ project, timestamp: ts(NOW - 2) }),
    ]);

    const rows = await run({ project, interval });

    const expected = new Map<number, number>();
    for (const t of [start, NOW - 1, NOW - 2])
      expected.set(trunc(t, bucket), (expected.get(trunc(t, bucket)) ?? 0) + 1);
    expect(rows.map((r) => [timestampMs(r.timestamp!), Number(r.totalRestRequests)])).toEqual([...expected.entries()]);
  });
});

describe("usage.api-counts totals", () => {
  it("counts a path in every total whose substring it contains, and 0 in the others", async () => {
    const project = "totalsproject";
    const paths = ["/rest/v1/todos", "/rest/v1/rpc/auth_refresh", "/storage/v1/object/a.png", "/graphql/v1"];
    await insertRows(
      setup.warehouse(),
      "edge_logs",
      paths.map((path) => edgeRow({ project, path, timestamp: ts(NOW - 5 * MINUTE) })),
    );
    const [row, ...rest] = await run({ project, interval: "hourly" });
    expect(rest).toEqual([]);
    // rest: two paths; storage: one; auth: the rpc path also counts; realtime: none.
    expect(totals(row!)).toEqual([2n, 1n, 1n, 0n]);
  });

  it("matches the project as a regular expression anywhere in the URL, not the project column", async () => {
    await insertRows(setup.warehouse(), "edge_logs", [
      edgeRow({ project: "regexone", timestamp: ts(NOW - MINUTE) }),
      edgeRow({ project: "regextwo", timestamp: ts(NOW - MINUTE) }),
      edgeRow({ project: "regextwo", timestamp: ts(NOW - MINUTE) }),
      // The project column says regexone, the URL names another host.
      edgeRow({ project: "regexone", url: "https://other.example.com/rest/v1/x", timestamp: ts(NOW - MINUTE) }),
    ]);
    const count = async (project: string) =>
      (await run({ project, interval: "hourly" })).reduce((n, r) => n + Number(r.totalRestRequests), 0);
    expect(await count("regexone")).toBe(1); // partial match inside https://regexone.supabase.co/...
    expect(await count("regex(one|two)")).toBe(3); // one pattern, two projects
    expect(await count("^https://regextwo\\.")).toBe(2);
    expect(await count("other\\.example")).toBe(1);
  });

  it.each([
    ["with rows to scan", "(", NOW],
    ["with no row in the window", "[z-a]", NOW + 365 * DAY],
  ])("refuses an invalid regular expression %s as invalid project", async (_label, pattern, now) => {
    setup.stack().clock.set(now);
    const error = await run({ project: pattern, interval: "hourly" }).catch((e: unknown) => e);
    setup.stack().clock.set(NOW);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
    expect(fieldViolationsOf(error as ConnectError).map((v) => v.field)).toEqual(["project"]);
  });

  it("refuses an interval outside hourly, daily, minutely", async () => {
    const error = await run({ project: "x", interval: "weekly" }).catch((e: unknown) => e);
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
    expect(fieldViolationsOf(error as ConnectError)).toEqual([
      { field: "interval", description: "interval must be one of hourly, daily, minutely" },
    ]);
  });
});

// logs.all over the embedded warehouse with a pinned clock: retention per
// tier, the optional bounds, the 100-row cut and the stored metadata.
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectError } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import { fieldViolationsOf } from "../../../src/errors/index.js";
import type { LogRecord } from "../../../src/gen/logs/v1/logs_pb.js";
import { edgeRow, insertRows, ts } from "../../support/embedded-warehouse.js";
import { useQueryStack } from "../../support/query-stack.js";
import { DAY } from "../../support/time.js";

const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);

const setup = useQueryStack(NOW);

const run = (params: Record<string, string>) => setup.stack().run<LogRecord>("logs.all", params);

describe("logs.all retention", () => {
  it.each([
    ["FREE", 1],
    ["PRO", 7],
    ["PAYG", 90],
    ["ENTERPRISE", 90],
    ["GOLD", 1],
    [undefined, 1],
  ] as const)("tier %s keeps records later than now - %i days", async (tier, days) => {
    const project = `retention${tier ?? "absent"}`;
    const edge = NOW - days * DAY;
    await insertRows(setup.warehouse(), "edge_logs", [
      edgeRow({ project, id: `${project}-inside`, timestamp: ts(edge, 1) }), // a microsecond later: kept
      edgeRow({ project, id: `${project}-edge`, timestamp: ts(edge) }), // exactly at the edge: dropped
      edgeRow({ project, id: `${project}-older`, timestamp: ts(edge - DAY) }),
    ]);
    const rows = await run({ project, ...(tier === undefined ? {} : { project_tier: tier }) });
    expect(rows.map((r) => r.id)).toEqual([`${project}-inside`]);
  });
});

describe("logs.all bounds", () => {
  const project = "bounds";
  // Three records a few microseconds apart, as shippers write them.
  const base = NOW - 3_600_000;
  const records = [
    { id: "b1", timestamp: ts(base, 101) },
    { id: "b2", timestamp: ts(base, 202) },
    { id: "b3", timestamp: ts(base, 303) },
  ];
  const iso = (micros: number) => new Date(base).toISOString().replace("Z", `${String(micros).padStart(3, "0")}Z`);
  beforeAll(() =>
    insertRows(
      setup.warehouse(),
      "edge_logs",
      records.map((r) => edgeRow({ project, ...r })),
    ),
  );

  it.each([
    ["no bounds", {}, ["b3", "b2", "b1"]],
    ["empty bounds", { iso_timestamp_start: "", iso_timestamp_end: "" }, ["b3", "b2", "b1"]],
    ["start at a record's exact time excludes it", { iso_timestamp_start: iso(101) }, ["b3", "b2"]],
    ["end at a record's exact time includes it", { iso_timestamp_end: iso(202) }, ["b2", "b1"]],
    ["both", { iso_timestamp_start: iso(101), iso_timestamp_end: iso(303) }, ["b3", "b2"]],
    ["start with a zone offset", { iso_timestamp_start: iso(202).replace("Z", "+00:00") }, ["b3"]],
  ])("%s", async (_label, bounds, ids) => {
    const rows = await run({ project, project_tier: "PRO", ...bounds });
    expect(rows.map((r) => r.id)).toEqual(ids);
  });

  it("refuses unparseable bounds, naming both fields at once", async () => {
    const error = (await run({ project, iso_timestamp_start: "yesterday", iso_timestamp_end: "2026-13-01" }).catch(
      (e: unknown) => e,
    )) as ConnectError;
    expect(error.code).toBe(Code.InvalidArgument);
    expect(fieldViolationsOf(error).map((v) => v.field)).toEqual(["iso_timestamp_start", "iso_timestamp_end"]);
  });
});

describe("logs.all result", () => {
  it("returns the 100 most recent records of the project, newest first", async () => {
    const project = "hundred";
    const times = Array.from({ length: 150 }, (_, i) => NOW - ((i * 7919) % 150) * 1000 - 1);
    await insertRows(
      setup.warehouse(),
      "edge_logs",
      times.map((t) => edgeRow({ project, id: `r${t}`, timestamp: ts(t) })),
    );
    await insertRows(setup.warehouse(), "edge_logs", [edgeRow({ project: "not-hundred", timestamp: ts(NOW - 1) })]);

    const rows = await run({ project });

    const expected = [...times].sort((a, b) => b - a).slice(0, 100);
    expect(rows.map((r) => timestampMs(r.timestamp!))).toEqual(expected);
    expect(rows.map((r) => r.id)).toEqual(expected.map((t) => `r${t}`));
  });

  it("returns the stored metadata and message of a record", async () => {
    const row = edgeRow({ project: "shape", path: "/auth/v1/user", status: 401, timestamp: ts(NOW - 1000, 500) });
    await insertRows(setup.warehouse(), "edge_logs", [row]);
    const [record] = await run({ project: "shape" });
    expect(record?.id).toBe(row.id);
    expect(record?.eventMessage).toBe("GET | 401 | /auth/v1/user");
    expect(record?.timestamp?.nanos).toBe(((NOW - 1000) % 1000) * 1_000_000 + 500_000);
    expect(record?.metadata).toEqual(JSON.parse(row.metadata));
  });
});

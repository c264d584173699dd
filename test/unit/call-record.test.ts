import { describe, expect, it } from "vitest";
import type { EndpointResult } from "../../src/endpoints/index.js";
import { createRecordCall } from "../../src/transport/call/call-record.js";
import type { CallLogRow } from "../../src/warehouse/index.js";

const resultOf = (status: "HIT" | "MISS" | "STALE" | undefined, statistics?: { rowsRead: number; bytesRead: number }) =>
  ({
    cache: status === undefined ? undefined : { status, ageSeconds: 0 },
    computation: { warehouseMs: 5, serializeMs: 1, statistics },
  }) as unknown as EndpointResult;

function recorded(call: { credential?: { id: string }; started: number }, result: EndpointResult | undefined) {
  const rows: CallLogRow[] = [];
  createRecordCall({ record: (row: CallLogRow) => rows.push({ ...row }) })(
    { requestId: "req-1", credential: call.credential, started: call.started },
    { endpoint: "usage.api-counts", protocol: "grpc", code: "ok", result, responseBytes: 42 },
  );
  return rows;
}

describe("createRecordCall", () => {
  it.each([
    ["HIT", "hit"],
    ["MISS", "miss"],
    ["STALE", "stale"],
    [undefined, "none"],
  ] as const)("records a result of cache status %s as %s", (status, cache) => {
    const [row] = recorded({ credential: { id: "tenant-a" }, started: performance.now() }, resultOf(status));
    expect(row?.cache).toBe(cache);
  });

  it("records the caller's id, the call's fields and the reads of the query that made the result", () => {
    const started = performance.now() - 10;
    const [row] = recorded(
      { credential: { id: "tenant-a" }, started },
      resultOf("HIT", { rowsRead: 4747, bytesRead: 365935 }),
    );
    expect(row).toMatchObject({
      requestId: "req-1",
      endpoint: "usage.api-counts",
      caller: "tenant-a",
      protocol: "grpc",
      code: "ok",
      rowsRead: 4747,
      bytesRead: 365935,
      responseBytes: 42,
    });
    expect(row!.durationMs).toBeGreaterThanOrEqual(10);
  });

  it("records no reads for a call without a result, and nothing for a call refused before its caller was known", () => {
    expect(recorded({ credential: { id: "tenant-a" }, started: 0 }, undefined)[0]).toMatchObject({
      rowsRead: 0,
      bytesRead: 0,
      cache: "none",
    });
    expect(recorded({ started: 0 }, undefined)).toEqual([]);
  });

  it("lends the call log one row it refills for every call, so that a call allocates none", () => {
    const lent: CallLogRow[] = [];
    const copies: CallLogRow[] = [];
    const record = createRecordCall({
      record(row: CallLogRow) {
        lent.push(row);
        copies.push({ ...row });
      },
    });
    const end = { endpoint: "usage.api-counts", protocol: "grpc", result: undefined, responseBytes: 1 } as const;
    record({ requestId: "req-1", credential: { id: "tenant-a" } as never, started: 0 }, { ...end, code: "ok" });
    record({ requestId: "req-2", credential: { id: "tenant-b" } as never, started: 0 }, { ...end, code: "internal" });
    expect(lent[0]).toBe(lent[1]);
    expect(copies.map((r) => [r.requestId, r.caller, r.code])).toEqual([
      ["req-1", "tenant-a", "ok"],
      ["req-2", "tenant-b", "internal"],
    ]);
  });
});

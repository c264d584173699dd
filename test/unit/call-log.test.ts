// The call log's aggregates and writes, with a fake warehouse client and fake
// timers: calls of one key and minute counted in one aggregate, the oldest
// aggregates dropped and counted past the bound, aggregates kept and written
// again after a failed insert, one insert at a time, and nothing at all when
// the log is off. Each test call names its own saved query, so that it is its
// own aggregate unless the test says otherwise.
import { afterEach, describe, expect, it, vi } from "vitest";
import { fixedClock } from "../../src/observability/index.js";
import { createCallLog, type CallLogRow } from "../../src/warehouse/index.js";

const at = Date.UTC(2026, 10, 20, 21, 59, 0, 123);

function call(name: string, overrides: Partial<CallLogRow> = {}): CallLogRow {
  return {
    requestId: `request-${name}`,
    endpoint: name,
    caller: "tenant-a",
    protocol: "get",
    code: "ok",
    cache: "miss",
    rowsRead: 10,
    bytesRead: 200,
    durationMs: 3.5,
    responseBytes: 99,
    ...overrides,
  };
}

/** A client whose inserts are answered by `answer` (default: taken at once); records each batch's saved queries. */
function fakeClient(answer: () => Promise<void> = () => Promise.resolve()) {
  const batches: string[][] = [];
  const values: Record<string, unknown>[][] = [];
  const tokens: string[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const client = {
    async insert(params: {
      table: string;
      values: Record<string, unknown>[];
      format: string;
      clickhouse_settings?: { insert_deduplication_token?: string };
    }) {
      expect([params.table, params.format]).toEqual(["service_call_aggregates", "JSONEachRow"]);
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      try {
        batches.push(params.values.map((row) => row.endpoint as string));
        values.push(params.values);
        tokens.push(params.clickhouse_settings?.insert_deduplication_token ?? "");
        await answer();
      } finally {
        running -= 1;
      }
    },
  };
  return {
    client: client as never,
    batches,
    values,
    tokens,
    get mostAtOnce() {
      return mostAtOnce;
    },
  };
}

function droppedCounter() {
  let count = 0;
  const byCaller: Record<string, number> = {};
  return {
    inc: (caller: string, n: number) => {
      count += n;
      byCaller[caller] = (byCaller[caller] ?? 0) + n;
    },
    get count() {
      return count;
    },
    byCaller,
  };
}

describe("createCallLog", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("writes the calls of a key and minute as one aggregate, in the table's columns, once per period", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const fake = fakeClient();
    const log = createCallLog(fake.client, { flushMs: 5_000, clock: fixedClock(at) });
    const apiCounts = { endpoint: "usage.api-counts" };
    log.record(call("r1", { ...apiCounts, at: at + 0.456 }));
    log.record(call("r2", { ...apiCounts, at: at + 30_000, rowsRead: 5, bytesRead: 7, responseBytes: 1 }));
    log.record(call("r3", { ...apiCounts, durationMs: 100 }));
    log.record(call("r4", { ...apiCounts, protocol: "grpc", code: "resource_exhausted", cache: "none" }));
    log.record(call("r5", { ...apiCounts, at: at + 60_000 })); // the next minute
    await vi.advanceTimersByTimeAsync(4_999);
    expect(fake.batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.values[0]).toHaveLength(3);
    // 3.5 ms: floor((log2(3.5) + 10) * 16) = floor(188.92) = 188; 100 ms: floor((6.644 + 10) * 16) = 266.
    expect(fake.values[0]![0]).toEqual({
      timestamp: "2026-11-20 21:59:00",
      caller: "tenant-a",
      endpoint: "usage.api-counts",
      protocol: "get",
      code: "ok",
      cache: "miss",
      calls: 3,
      rows_read: 25,
      bytes_read: 407,
      response_bytes: 199,
      latency_buckets: [188, 266],
      latency_counts: [2, 1],
      latency_sums: [7, 100],
    });
    expect(fake.values[0]![1]).toMatchObject({
      timestamp: "2026-11-20 21:59:00",
      protocol: "grpc",
      code: "resource_exhausted",
      cache: "none",
      calls: 1,
    });
    expect(fake.values[0]![2]).toMatchObject({ timestamp: "2026-11-20 22:00:00", calls: 1 });
    // r5's key and minute again, now written: a new aggregate, in the next batch.
    log.record(call("r7", { ...apiCounts, at: at + 60_000 }));
    log.record(call("r6"));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(fake.batches.at(-1)).toEqual(["r6", "usage.api-counts"]);
    expect(fake.values.at(-1)![1]).toMatchObject({ calls: 1 });
    await log.close();
  });

  it("counts a flood of one key's calls in one aggregate, whatever their number", async () => {
    const fake = fakeClient();
    const dropped = droppedCounter();
    const log = createCallLog(fake.client, { maxRows: 2, droppedRows: dropped.inc, clock: fixedClock(at) });
    for (let i = 0; i < 10_000; i++) log.record(call("flood", { code: "resource_exhausted", durationMs: 0.5 }));
    await log.flush();
    expect(fake.values).toEqual([
      [expect.objectContaining({ calls: 10_000, latency_counts: [10_000], latency_sums: [5_000] })],
    ]);
    expect(dropped.count).toBe(0);
    await log.close();
  });

  it("drops the oldest minute's aggregates first past the bound, counting their calls", async () => {
    const fake = fakeClient();
    const dropped = droppedCounter();
    const log = createCallLog(fake.client, { maxRows: 2, droppedRows: dropped.inc, clock: fixedClock(at) });
    log.record(call("old", { at: at - 60_000 }));
    log.record(call("old", { at: at - 60_000 }));
    log.record(call("now-1"));
    log.record(call("now-2"));
    await log.flush();
    expect(fake.batches).toEqual([["now-1", "now-2"]]);
    expect(dropped.count).toBe(2);
    await log.close();
  });

  it("drops the oldest rows past the bound and counts them", async () => {
    const fake = fakeClient();
    const dropped = droppedCounter();
    const log = createCallLog(fake.client, { maxRows: 3, droppedRows: dropped.inc, clock: fixedClock(at) });
    for (const id of ["r1", "r2", "r3", "r4", "r5"]) log.record(call(id));
    await log.flush();
    expect(fake.batches).toEqual([["r3", "r4", "r5"]]);
    expect(dropped.count).toBe(2);
    await log.close();
  });

  it("keeps the rows of a failed insert and writes them again, alone, then the rows recorded meanwhile", async () => {
    let failing = true;
    const fake = fakeClient(() => (failing ? Promise.reject(new Error("connect ECONNREFUSED")) : Promise.resolve()));
    const dropped = droppedCounter();
    const log = createCallLog(fake.client, { maxRows: 3, droppedRows: dropped.inc, clock: fixedClock(at) });
    log.record(call("r1"));
    log.record(call("r2"));
    await log.flush();
    log.record(call("r3"));
    log.record(call("r4"));
    await log.flush();
    failing = false;
    await log.flush();
    await log.flush();
    // r1 was dropped when r4 came: four rows for a bound of three.
    expect(fake.batches).toEqual([["r1", "r2"], ["r2"], ["r2"], ["r3", "r4"]]);
    expect(dropped.count).toBe(1);
    await log.close();
  });

  it("drops the calls that find it full while its batch is out, and keeps that batch whole", async () => {
    let release!: (ok: boolean) => void;
    const fake = fakeClient(
      () => new Promise<void>((resolve, reject) => (release = (ok) => (ok ? resolve() : reject(new Error("down"))))),
    );
    const dropped = droppedCounter();
    const log = createCallLog(fake.client, { maxRows: 2, droppedRows: dropped.inc, clock: fixedClock(at) });
    log.record(call("r1"));
    log.record(call("r2"));
    const failed = log.flush();
    log.record(call("r3")); // no room while r1 and r2 are out
    expect(dropped.byCaller).toEqual({ "tenant-a": 1 });
    release(false);
    await failed;
    log.record(call("r4")); // the failed batch's oldest, r1, makes room
    expect(dropped.count).toBe(2);
    const retried = log.flush();
    release(true);
    // The calls recorded meanwhile follow the batch written again at once.
    await new Promise((resolve) => setImmediate(resolve));
    release(true);
    await retried;
    expect(fake.batches).toEqual([["r1", "r2"], ["r2"], ["r4"]]);
    await log.close();
  });

  it("drops the aggregates of the caller holding the most when full, so that one caller keeps the others'", async () => {
    const fake = fakeClient();
    const dropped = droppedCounter();
    const log = createCallLog(fake.client, { maxRows: 4, droppedRows: dropped.inc, clock: fixedClock(at) });
    log.record(call("b1", { caller: "tenant-b" }));
    log.record(call("b2", { caller: "tenant-b" }));
    for (let i = 1; i <= 6; i++) log.record(call(`a${i}`));
    await log.flush();
    expect(fake.batches.flat().sort()).toEqual(["a5", "a6", "b1", "b2"]);
    expect(dropped.byCaller).toEqual({ "tenant-a": 4 });
    await log.close();
  });

  it("writes a failed batch again with the same deduplication token, a new batch with a new one", async () => {
    let failing = true;
    const fake = fakeClient(() => (failing ? Promise.reject(new Error("timeout")) : Promise.resolve()));
    const log = createCallLog(fake.client, { clock: fixedClock(at) });
    log.record(call("r1"));
    await log.flush();
    log.record(call("r2"));
    await log.flush();
    failing = false;
    await log.flush();
    log.record(call("r3"));
    await log.flush();
    expect(fake.batches).toEqual([["r1"], ["r1"], ["r1"], ["r2"], ["r3"]]);
    const [first, second, third, fourth, fifth] = fake.tokens;
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect([second, third]).toEqual([first, first]);
    expect(new Set([first, fourth, fifth]).size).toBe(3);
    await log.close();
  });

  it("never starts an insert while another is under way", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const fake = fakeClient(() => new Promise<void>((resolve) => setTimeout(resolve, 12_000)));
    const log = createCallLog(fake.client, { flushMs: 5_000, clock: fixedClock(at) });
    log.record(call("r1"));
    await vi.advanceTimersByTimeAsync(5_000);
    log.record(call("r2"));
    const asked = log.flush(); // joins the insert under way
    await vi.advanceTimersByTimeAsync(10_000);
    expect(fake.batches).toEqual([["r1"]]);
    await vi.advanceTimersByTimeAsync(2_000);
    await asked;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(fake.batches).toEqual([["r1"], ["r2"]]);
    expect(fake.mostAtOnce).toBe(1);
    const closing = log.close(1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    await closing;
  });

  it("writes what it holds when closed, giving up at the deadline, and ignores later calls", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const fake = fakeClient(() => new Promise<void>(() => {}));
    const log = createCallLog(fake.client, { flushMs: 5_000, clock: fixedClock(at) });
    log.record(call("r1"));
    let closed = false;
    const closing = log.close(2_000).then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(1_999);
    expect([fake.batches, closed]).toEqual([[["r1"]], false]);
    await vi.advanceTimersByTimeAsync(1);
    await closing;
    expect(closed).toBe(true);
    log.record(call("r2"));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fake.batches).toEqual([["r1"]]);
  });

  it("records nothing and writes nothing when off", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const fake = fakeClient();
    const log = createCallLog(fake.client, { enabled: false });
    log.record(call("r1"));
    await vi.advanceTimersByTimeAsync(60_000);
    await log.flush();
    await log.close();
    expect(fake.batches).toEqual([]);
  });

  it("never throws from record, whatever the row, and counts a call of no known time as dropped", async () => {
    const fake = fakeClient();
    const dropped = droppedCounter();
    const log = createCallLog(fake.client, { clock: () => Number.NaN, droppedRows: dropped.inc });
    expect(() => log.record(call("r1"))).not.toThrow();
    expect(() => log.record(null as never)).not.toThrow();
    expect(dropped.count).toBe(1);
    await log.flush();
    expect(fake.batches).toEqual([]);
    void log.close(0);
  });
});

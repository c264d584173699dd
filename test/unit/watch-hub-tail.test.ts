// The live tail of logs.all through the watch hub, over a fake warehouse
// that answers the saved query's cursor and order: the current page first,
// then only newer rows in ascending (timestamp, id) order, never a row
// twice, one poll query per key whatever the number of watchers.
import { create } from "@bufbuild/protobuf";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createEndpointRegistry,
  createEndpointService,
  createWatchHub,
  savedQueryServices,
  type WatchListener,
} from "../../src/endpoints/index.js";
import type { QueryExecutor, WarehouseRow } from "../../src/executor/index.js";
import { fakeClock } from "../support/fake-time.js";

const registry = createEndpointRegistry({ services: savedQueryServices });
const logsAll = registry.find("logs.all")!;
afterEach(() => vi.useRealTimers());

/** `second` seconds and `micro` microseconds past 2026-11-20T10:00:00Z, as the warehouse writes it. */
const at = (second: number, micro = 0) =>
  `2026-11-20T10:00:${String(second).padStart(2, "0")}.${String(micro).padStart(6, "0")}Z`;
/** The DateTime64 parameter text of a cursor, back to the ISO form for comparing. */
const isoOfParam = (text: string) => `${text.replace(" ", "T")}Z`;

function setup() {
  const clock = fakeClock(Date.UTC(2026, 10, 20, 10, 5), ["Date", "setTimeout", "clearTimeout"]);
  const table: WarehouseRow[] = [];
  const state = { queries: 0 };
  const executor: QueryExecutor = {
    async execute(_query, params) {
      state.queries += 1;
      const cursor = params.cursor_timestamp;
      const before = (row: WarehouseRow) =>
        cursor === null ||
        String(row.timestamp) < isoOfParam(String(cursor)) ||
        (String(row.timestamp) === isoOfParam(String(cursor)) && String(row.id) < String(params.cursor_id));
      const rows = table
        .filter(before)
        .sort((a, b) => (`${a.timestamp}${a.id}` < `${b.timestamp}${b.id}` ? 1 : -1))
        .slice(0, 101);
      return { rows, queryId: "q", durationMs: 1 };
    },
  };
  const service = createEndpointService({ executor, clock });
  const hub = createWatchHub({ service, executor, clock, tailPollMs: 2000 });
  const call = service.prepare(logsAll, create(logsAll.method.input, { project: "p" }));
  const insert = (...rows: [string, string][]) => {
    for (const [id, timestamp] of rows) table.push({ id, timestamp, event_message: id, metadata: [] });
  };
  return { clock, state, hub, call, insert };
}

function recorder() {
  const messages: string[][] = [];
  const listener: WatchListener = {
    next(result) {
      messages.push((result.message() as unknown as { result: { id: string }[] }).result.map((r) => r.id));
      return true;
    },
    end() {},
  };
  return { messages, listener };
}

const settle = () => vi.advanceTimersByTimeAsync(0);

describe("watch hub live tail", () => {
  it("sends the current page newest first, then only newer rows in ascending order", async () => {
    const { hub, call, insert } = setup();
    insert(["a", at(1)], ["b", at(2)]);
    const seen = recorder();
    hub.watch(call, { tenant: "k" }, seen.listener);
    await settle();
    expect(seen.messages).toEqual([["b", "a"]]);
    // Two rows sharing a microsecond, one older than any sent (never sent: the tail is of newer rows).
    insert(["d", at(3, 5)], ["c", at(3, 5)], ["old", at(0)]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(seen.messages).toEqual([
      ["b", "a"],
      ["c", "d"],
    ]);
  });

  it("sends no message when a poll finds no new rows, and never a row twice", async () => {
    const { hub, call, insert } = setup();
    insert(["a", at(1)]);
    const seen = recorder();
    hub.watch(call, {}, seen.listener);
    await settle();
    await vi.advanceTimersByTimeAsync(2000);
    insert(["b", at(2)]);
    await vi.advanceTimersByTimeAsync(2000);
    await vi.advanceTimersByTimeAsync(2000);
    expect(seen.messages).toEqual([["a"], ["b"]]);
  });

  it("runs one poll query per key for all its watchers", async () => {
    const { hub, call, insert, state } = setup();
    insert(["a", at(1)]);
    const watchers = Array.from({ length: 50 }, () => recorder());
    for (const w of watchers) hub.watch(call, { tenant: "k" }, w.listener);
    await settle();
    const opened = state.queries;
    insert(["b", at(2)]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(state.queries).toBe(opened + 1);
    expect(watchers.every((w) => JSON.stringify(w.messages) === '[["a"],["b"]]')).toBe(true);
  });

  it("pages back within one poll to reach the last row sent", async () => {
    const { hub, call, insert } = setup();
    insert(["a", at(1)]);
    const seen = recorder();
    hub.watch(call, {}, seen.listener);
    await settle();
    const burst = Array.from(
      { length: 250 },
      (_, i) => [`n${String(i).padStart(3, "0")}`, at(2, i)] as [string, string],
    );
    insert(...burst);
    await vi.advanceTimersByTimeAsync(2000);
    expect(seen.messages[1]).toEqual(burst.map(([id]) => id));
  });
});

// Watch streams below the transport over the embedded warehouse: a watch of
// usage.api-counts sees rows inserted once the cache refreshes its key, and
// the tail of logs.all sees exactly the rows inserted since its first page.
import { create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createResultCache } from "../../../src/cache/index.js";
import {
  createEndpointRegistry,
  createEndpointService,
  createWatchHub,
  savedQueryServices,
  type ComputedResponse,
  type EndpointResult,
  type WatchHub,
} from "../../../src/endpoints/index.js";
import { createQueryExecutor } from "../../../src/executor/index.js";
import type { ApiCountsRow } from "../../../src/gen/usage/v1/usage_pb.js";
import { fixedClock } from "../../../src/observability/index.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { edgeRow, insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";
import { MINUTE } from "../../support/time.js";

const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);
let warehouse: Warehouse;
let hub: WatchHub;
const cache = createResultCache<ComputedResponse>({ sweepIntervalMs: 0 });
const registry = createEndpointRegistry({ services: savedQueryServices });
let service: ReturnType<typeof createEndpointService>;

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  const clock = fixedClock(NOW);
  const executor = createQueryExecutor({ client: warehouse.client, clock });
  service = createEndpointService({ executor, cache, clock });
  // Polls only when the test asks (pollNow).
  hub = createWatchHub({ service, cache, executor, clock, tailPollMs: 3_600_000 });
});
afterAll(async () => {
  hub.close();
  cache.close();
  await warehouse.close();
});

/** Messages of one stream, and a promise of the next one. */
function collect() {
  const messages: EndpointResult[] = [];
  let wake = () => {};
  const listener = {
    next(result: EndpointResult) {
      messages.push(result);
      wake();
      return true;
    },
    end() {},
  };
  const count = async (n: number) => {
    while (messages.length < n) await new Promise<void>((resolve) => (wake = resolve));
  };
  return { messages, listener, count };
}

const rowsOf = <Row>(result: EndpointResult) => (result.message() as unknown as { result: Row[] }).result;

describe("watch hub on the embedded warehouse", () => {
  it("sends new counts of usage.api-counts once the cache refreshes its key", async () => {
    const project = "watchcounts";
    await insertRows(warehouse, "edge_logs", [edgeRow({ project, timestamp: ts(NOW - 5 * MINUTE) })]);
    const endpoint = registry.find("usage.api-counts")!;
    const call = service.prepare(endpoint, create(endpoint.method.input, { project, interval: "hourly" }));
    const stream = collect();
    hub.watch(call, { tenant: "k" }, stream.listener);
    await stream.count(1);
    const total = (r: EndpointResult) => rowsOf<ApiCountsRow>(r).reduce((n, row) => n + row.totalRestRequests, 0n);
    expect(total(stream.messages[0]!)).toBe(1n);
    await insertRows(warehouse, "edge_logs", [
      edgeRow({ project, timestamp: ts(NOW - 4 * MINUTE) }),
      edgeRow({ project, timestamp: ts(NOW - 3 * MINUTE) }),
    ]);
    await cache.refreshWhere((key) => key.includes(project));
    await stream.count(2);
    expect(total(stream.messages[1]!)).toBe(3n);
    // The same rows again send nothing.
    await cache.refreshWhere((key) => key.includes(project));
    expect(stream.messages).toHaveLength(2);
  });

  it("tails logs.all: the rows inserted since the first page, and nothing else", async () => {
    const project = "watchtail";
    await insertRows(warehouse, "edge_logs", [
      edgeRow({ project, id: "t-1", timestamp: ts(NOW - 10 * MINUTE) }),
      edgeRow({ project, id: "t-2", timestamp: ts(NOW - 9 * MINUTE) }),
    ]);
    const endpoint = registry.find("logs.all")!;
    const call = service.prepare(endpoint, create(endpoint.method.input, { project }));
    const stream = collect();
    hub.watch(call, { tenant: "k" }, stream.listener);
    await stream.count(1);
    expect(rowsOf<{ id: string }>(stream.messages[0]!).map((r) => r.id)).toEqual(["t-2", "t-1"]);
    await insertRows(warehouse, "edge_logs", [
      edgeRow({ project, id: "t-4", timestamp: ts(NOW - 2 * MINUTE, 7) }),
      edgeRow({ project, id: "t-3", timestamp: ts(NOW - 2 * MINUTE, 7) }),
    ]);
    await hub.pollNow();
    await stream.count(2);
    expect(rowsOf<{ id: string }>(stream.messages[1]!).map((r) => r.id)).toEqual(["t-3", "t-4"]);
    await hub.pollNow();
    expect(stream.messages).toHaveLength(2);
  });
});

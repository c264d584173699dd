// Read limits and statistics on the embedded engine, through the endpoint
// service: the true rows a saved query reads, and a limit from each source
// refusing a call that would read more while a call under it succeeds.
import { create, type Message } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createResultCache } from "../../../src/cache/index.js";
import {
  createEndpointRegistry,
  createEndpointService,
  savedQueryServices,
  type ComputedResponse,
  type Endpoint,
} from "../../../src/endpoints/index.js";
import { createQueryExecutor, type QueryExecutorOptions, type ReadLimitValues } from "../../../src/executor/index.js";
import { fixedClock } from "../../../src/observability/index.js";
import { seedDemoData, type Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);

let warehouse: Warehouse;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  // 40,000 edge_logs rows over the 8 days before NOW.
  await seedDemoData(warehouse.client, { now: NOW });
}, 120_000);
afterAll(async () => warehouse?.close());

const registry = createEndpointRegistry({ services: savedQueryServices });
const apiCounts = registry.find("usage.api-counts")!;
/** Every URL of the demo set matches, by day over 7 days. */
const request = create(apiCounts.method.input, { project: "supabase", interval: "daily" } as never) as Message;

function stack(options: { defaults?: ReadLimitValues; cached?: boolean } = {}) {
  const observed: Parameters<NonNullable<QueryExecutorOptions["observe"]>>[0][] = [];
  const executor = createQueryExecutor({
    client: warehouse.client,
    clock: fixedClock(NOW),
    observe: (event) => observed.push(event),
  });
  const cache = options.cached ? createResultCache<ComputedResponse>({ sweepIntervalMs: 0 }) : undefined;
  const service = createEndpointService({
    executor,
    cache,
    clock: fixedClock(NOW),
    defaultReadLimits: options.defaults,
  });
  return { service, observed };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => ConnectError.from(error),
  );

describe("statistics on the embedded engine", () => {
  it("reports the rows the query read, not the rows it returned, with bytes and the warehouse's time", async () => {
    const result = await stack().service.run(apiCounts, request);
    const rows = (result.message() as unknown as { result: unknown[] }).result;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(8);
    const statistics = result.computation.statistics!;
    // Most of the 40,000 edge_logs rows lie in the 7-day window and are scanned.
    expect(statistics.rowsRead).toBeGreaterThan(30_000);
    expect(statistics.rowsRead).toBeLessThanOrEqual(40_000);
    expect(statistics.bytesRead).toBeGreaterThan(statistics.rowsRead);
    expect(statistics.elapsedMs).toBeGreaterThan(0);
  });
});

describe("read limits on the embedded engine", () => {
  const withOwnLimits = (limits: ReadLimitValues): Endpoint => ({ ...apiCounts, readLimits: limits });

  it.each([
    [
      "the saved query's",
      () => stack().service.run(withOwnLimits({ maxRowsToRead: 1000 }), request),
      "rows to read past the limit of 1000 set by the saved query",
    ],
    [
      "the credential's",
      () => stack().service.run(apiCounts, request, {}, { readLimits: { maxRowsToRead: 2000 } }),
      "rows to read past the limit of 2000 set by the credential",
    ],
    [
      "the default",
      () => stack({ defaults: { maxRowsToRead: 3000 } }).service.run(apiCounts, request),
      "rows to read past the limit of 3000 set by the service's default",
    ],
    [
      "the credential's byte limit",
      () => stack().service.run(apiCounts, request, {}, { readLimits: { maxBytesToRead: 10_000 } }),
      "bytes to read past the limit of 10000 set by the credential",
    ],
  ])("refuses a call past %s limit as resource_exhausted naming it", async (_label, call, message) => {
    const error = await refusal(call());
    expect(error?.code).toBe(Code.ResourceExhausted);
    expect(error?.rawMessage).toBe(message);
    expect(error?.metadata.get("retry-after")).toBeNull();
  });

  it("answers a call under every limit, the smallest of them applied", async () => {
    const { service } = stack({ defaults: { maxRowsToRead: 10_000_000 } });
    const result = await service.run(
      withOwnLimits({ maxRowsToRead: 5_000_000 }),
      request,
      {},
      { readLimits: { maxRowsToRead: 1_000_000, maxBytesToRead: 1_000_000_000 } },
    );
    expect(result.computation.statistics?.rowsRead).toBeGreaterThan(30_000);
  });

  it("reports the refusal to the observer with the limit, and never caches it", async () => {
    const { service, observed } = stack({ defaults: { maxRowsToRead: 1000 }, cached: true });
    for (let i = 0; i < 2; i += 1)
      expect((await refusal(service.run(apiCounts, request)))?.code).toBe(Code.ResourceExhausted);
    // Both calls reached the warehouse: the first refusal was not kept for the second.
    expect(observed.map((e) => [e.query, e.readLimit, e.error?.code])).toEqual([
      ["usage.api-counts", "max_rows_to_read", Code.ResourceExhausted],
      ["usage.api-counts", "max_rows_to_read", Code.ResourceExhausted],
    ]);
    // The next call of the engine's session reads its own answer, not the refused query's leftovers.
    const result = await stack().service.run(apiCounts, request);
    expect(result.computation.statistics?.rowsRead).toBeGreaterThan(30_000);
  });

  it("keeps a credential's limited calls apart from others in the cache", async () => {
    const { service } = stack({ cached: true });
    const limited = service.prepare(apiCounts, request, { readLimits: { maxRowsToRead: 100 } });
    const open = service.prepare(apiCounts, request);
    expect(limited.cacheEntry?.key).not.toBe(open.cacheEntry?.key);
    await service.execute(open);
    expect(service.peek(open)).toBeDefined();
    expect(service.peek(limited)).toBeUndefined();
    expect((await refusal(service.execute(limited)))?.code).toBe(Code.ResourceExhausted);
  });
});

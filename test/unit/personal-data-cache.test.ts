// A cached saved query that masks personal data, through the endpoint service
// and its cache with a spy executor: {unmasked} is set from the scope alone,
// and masked and unmasked callers of the same parameters, in either order,
// each get a computation, a cache entry and a rows tag of their own.
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { createResultCache } from "../../src/cache/index.js";
import {
  type ComputedResponse,
  createEndpointRegistry,
  createEndpointService,
  type Endpoint,
  savedQueryServices,
} from "../../src/endpoints/index.js";
import type { QueryExecutor } from "../../src/executor/index.js";
import { fakeClock } from "../support/fake-time.js";

const registry = createEndpointRegistry({ services: savedQueryServices });
// usage.api-counts has a cache lifetime; here it masks, as a cached saved query with personal data would.
const apiCounts = registry.find("usage.api-counts")!;
const masking: Endpoint = { ...apiCounts, masksPersonalData: true };

function setup() {
  const executed: Record<string, unknown>[] = [];
  const executor: QueryExecutor = {
    async execute(_query, params) {
      executed.push(params);
      // The same (empty) rows whatever the masking: only the key and the tag may tell them apart.
      return { rows: [], queryId: "q", durationMs: 1 };
    },
  };
  const cache = createResultCache<ComputedResponse>({ sweepIntervalMs: 0, jitter: 0 });
  const service = createEndpointService({ executor, cache, clock: fakeClock(Date.UTC(2026, 10, 20)) });
  const request = create(masking.method.input, { project: "p", interval: "daily" } as never);
  const run = (unmasked: boolean) => service.run(masking, request, {}, unmasked ? { unmasked: true } : {});
  return { executed, service, request, run };
}

describe("a cached saved query that masks personal data", () => {
  it.each([
    ["unmasked first", [true, false]],
    ["masked first", [false, true]],
  ])("computes and keeps masked and unmasked results apart: %s", async (_label, order) => {
    const { executed, run } = setup();
    const first = await run(order[0]!);
    const second = await run(order[1]!);
    expect(executed.map((p) => p.unmasked)).toEqual(order.map((u) => (u ? 1 : 0)));
    expect([first.cache?.status, second.cache?.status]).toEqual(["MISS", "MISS"]);
    expect(second.json().equals(first.json())).toBe(true);
    expect(second.rowsTag()).not.toBe(first.rowsTag());
    // Asked again, each is a hit of its own entry, with its own tag.
    const again = await Promise.all(order.map((u) => run(u)));
    expect(again.map((r) => r.cache?.status)).toEqual(["HIT", "HIT"]);
    expect(again.map((r) => r.rowsTag())).toEqual([first.rowsTag(), second.rowsTag()]);
    expect(executed).toHaveLength(2);
  });

  it("is masked without a scope, and unmasked only by the scope's say", () => {
    const { service, request } = setup();
    const params = (scope?: { unmasked?: true }) => service.prepare(masking, request, scope).queryParams.unmasked;
    expect([params(), params({}), params({ unmasked: true })]).toEqual([0, 0, 1]);
    // A saved query that does not mask reads no {unmasked}, whoever calls.
    expect(service.prepare(apiCounts, request, { unmasked: true }).queryParams).not.toHaveProperty("unmasked");
  });

  it("gives masked calls the key an unmasking-unaware call had, and unmasked calls another", () => {
    const { service, request } = setup();
    const plainKey = service.prepare(apiCounts, request).cacheEntry?.key;
    expect(service.prepare(masking, request).cacheEntry?.key).toBe(plainKey);
    expect(service.prepare(masking, request, { unmasked: true }).cacheEntry?.key).toBe(`${plainKey}\nunmasked`);
  });
});

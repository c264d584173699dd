// The server's query cache as the service uses it (CLICKHOUSE_QUERY_CACHE_SECONDS):
// replicas asking within one step of `now` share one computation, whatever
// their callers' deadlines; other parameters and the next step compute anew.
// Runs only when CLICKHOUSE_URL is set; otherwise reported as skipped.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createQueryExecutor, createQueryTuning, type SavedQuery } from "../../../src/executor/index.js";
import { fixedClock } from "../../../src/observability/index.js";
import { openWarehouse, type Warehouse } from "../../../src/warehouse/index.js";
import { serverCredentials } from "../../support/server-credentials.js";

const url = process.env.CLICKHOUSE_URL;
const STEP_SECONDS = 60;
const NOW = Date.UTC(2026, 10, 20, 12, 34, 10);

describe.skipIf(url === undefined)("the server's query cache (skipped: CLICKHOUSE_URL is not set)", () => {
  let warehouse: Warehouse;
  // A text of its own per run, so that entries of an earlier run cannot answer.
  const marker = randomUUID();
  const cached: SavedQuery = {
    name: "test.cached",
    sql: `SELECT {p:String} AS p, {now:DateTime64(6, 'UTC')} AS now, '${marker}' AS run, count() AS n FROM numbers(1000)`,
    maxRows: 10,
  };
  const tuning = createQueryTuning({ queryCacheSeconds: STEP_SECONDS, cachedQueries: new Set([cached.name]) });

  beforeAll(async () => {
    warehouse = await openWarehouse({ kind: "server", url: url!, ...serverCredentials, database: "default" });
  });
  afterAll(async () => warehouse?.close());

  /** Whether the server answered `queryId` from its query cache. */
  async function wasHit(queryId: string): Promise<boolean> {
    await warehouse.client.command({ query: "SYSTEM FLUSH LOGS" });
    const result = await warehouse.client.query({
      query:
        "SELECT ProfileEvents['QueryCacheHits'] AS hits FROM system.query_log WHERE query_id = {id:String} AND type = 'QueryFinish'",
      query_params: { id: queryId },
      format: "JSONEachRow",
    });
    const [row] = await result.json<{ hits: number | string }>();
    return Number(row?.hits) > 0;
  }

  it("answers a second replica within the step from the cache, with another deadline and a later clock", async () => {
    // Two executors stand for two service replicas.
    const first = createQueryExecutor({ client: warehouse.client, clock: fixedClock(NOW), tuning });
    const second = createQueryExecutor({ client: warehouse.client, clock: fixedClock(NOW + 40_000), tuning });
    const a = await first.execute(cached, { p: "x" }, { timeoutMs: 30_000 });
    const b = await second.execute(cached, { p: "x" }, { timeoutMs: 12_345 });
    expect(a.rows).toEqual([{ p: "x", now: "2026-11-20T12:34:00.000000Z", run: marker, n: 1000 }]);
    expect(b.rows).toEqual(a.rows);
    expect(await wasHit(a.queryId)).toBe(false);
    expect(await wasHit(b.queryId)).toBe(true);
  });

  it("computes anew for other parameters and for the next step", async () => {
    const executor = createQueryExecutor({ client: warehouse.client, clock: fixedClock(NOW), tuning });
    const other = await executor.execute(cached, { p: "y" });
    expect(other.rows[0]).toMatchObject({ p: "y" });
    expect(await wasHit(other.queryId)).toBe(false);

    const later = createQueryExecutor({
      client: warehouse.client,
      clock: fixedClock(NOW + STEP_SECONDS * 1000),
      tuning,
    });
    const next = await later.execute(cached, { p: "x" });
    expect(next.rows[0]).toMatchObject({ now: "2026-11-20T12:35:00.000000Z" });
    expect(await wasHit(next.queryId)).toBe(false);
  });
});

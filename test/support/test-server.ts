// The real service on a real port (0: any free one) over an embedded
// warehouse, built by the same composition root as `npm start`.
import { createApp, type App, type AppOptions } from "../../src/app/index.js";
import { fixedClock } from "../../src/observability/index.js";
import { createSinglePortServer, type SinglePortServerOptions } from "../../src/transport/index.js";
import type { Warehouse } from "../../src/warehouse/index.js";
import { afterAll, beforeAll } from "vitest";
import { openTestWarehouse } from "./embedded-warehouse.js";
import { insertScenario, NOW } from "./scenario.js";

export const TEST_API_KEY = "test-key-0123456789";

export interface TestServer {
  url: string;
  /** `127.0.0.1:port` (`[host]:port` for an IPv6 host), for gRPC clients. */
  address: string;
  clock: ReturnType<typeof fixedClock>;
  app: App;
  close(): Promise<void>;
}

export async function startTestServer(
  warehouse: Warehouse,
  now: number,
  options: Partial<Omit<AppOptions, "warehouse" | "clock">> = {},
  serverOptions: SinglePortServerOptions & { host?: string } = {},
): Promise<TestServer> {
  const { host = "127.0.0.1", ...singlePortOptions } = serverOptions;
  const clock = fixedClock(now);
  // Warming runs when a test calls app.cache.runWarming(), after moving the clock.
  // The rate limits (per key, and per address for keyless requests) and the
  // failed-authentication throttle are off unless a test sets them: the pinned
  // clock never refills a bucket. /metrics is rendered afresh for each scrape,
  // so that a test sees the calls it just made.
  const app = createApp({
    warehouse,
    clock,
    apiKeys: [TEST_API_KEY],
    cacheSweepIntervalMs: 0,
    rateLimit: { perSecond: 0, burst: 0 },
    authFailures: { perSecond: 0, burst: 0 },
    keylessRateLimit: { perSecond: 0, burst: 0 },
    metricsReuseMs: 0,
    ...options,
  });
  const server = createSinglePortServer(app.handler, { streams: app.streams, ...singlePortOptions });
  const { port } = await server.listen(0, host);
  const authority = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  return {
    url: `http://${authority}`,
    address: authority,
    clock,
    app,
    close: async () => {
      await server.close(1_000);
      await app.callLog.close(1_000);
      app.close();
    },
  };
}

/**
 * Before the file's tests: a fresh embedded warehouse with the shared
 * scenario rows and a server over it at the scenario's time; closes both after.
 */
export function useScenarioServer(options: Partial<Omit<AppOptions, "warehouse" | "clock">> = {}) {
  let warehouse: Warehouse | undefined;
  let server: TestServer | undefined;
  beforeAll(async () => {
    warehouse = await openTestWarehouse();
    await insertScenario(warehouse);
    server = await startTestServer(warehouse, NOW, options);
  });
  afterAll(async () => {
    await server?.close();
    await warehouse?.close();
  });
  return { server: () => server!, warehouse: () => warehouse! };
}

// The composition root: wires transport -> auth -> endpoint registry ->
// executor -> warehouse into one request handler. Every dependency is passed
// in, so tests build the same app with their own clock and warehouse.
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { authInterceptor, createApiKeyCheck } from "../auth/index.js";
import { createEndpointRegistry, createEndpointService, savedQueryServices, type EndpointRegistry } from "../endpoints/index.js";
import { createQueryExecutor } from "../executor/index.js";
import { type Clock, type Logger, silentLogger, systemClock } from "../observability/index.js";
import { connectRoutes, createHttpRoutes, loggingInterceptor, type RequestHandler } from "../transport/index.js";
import type { Warehouse } from "../warehouse/index.js";

export interface AppOptions {
  warehouse: Pick<Warehouse, "client" | "kind">;
  /** Accepted API keys; at least one. */
  apiKeys: readonly string[];
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: silent. */
  logger?: Logger;
  /** Deadline of a call whose client set none. Default 30 000 ms. */
  defaultTimeoutMs?: number;
  /** Loads a saved query's SQL by name. Default: `sql/<name>.sql`. */
  readSql?: (name: string) => string;
}

export interface App {
  handler: RequestHandler;
  registry: EndpointRegistry;
}

export function createApp(options: AppOptions): App {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
  const registry = createEndpointRegistry({ services: savedQueryServices, readSql: options.readSql });
  const executor = createQueryExecutor({ client: options.warehouse.client, clock, logger, defaultTimeoutMs });
  const service = createEndpointService({ executor });
  const checkApiKey = createApiKeyCheck(options.apiKeys);

  const handler = connectNodeAdapter({
    routes: connectRoutes({ registry, service, defaultTimeoutMs }),
    interceptors: [loggingInterceptor(logger), authInterceptor(checkApiKey)],
    fallback: createHttpRoutes({ warehouse: options.warehouse, logger }),
  });
  return { handler, registry };
}

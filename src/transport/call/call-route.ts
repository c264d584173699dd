// The route of a request, decided once from its target when its call is made; the saved query it names and the
// client of the call are worked out on first read.
import type { HeaderReader } from "../../auth/index.js";
import type { Endpoint, EndpointRegistry } from "../../endpoints/index.js";
import { clientAddress, type TrustedProxies } from "./client-address.js";
import { pathOf } from "./request-handler.js";

/** Where a request goes: a GET route, the import route, a saved query's procedure, gRPC health or reflection, or anything else (unknown procedures, the explorer). */
export type Route =
  | "health"
  | "readiness"
  | "metrics"
  | "openapi"
  | "listing"
  | "saved-query"
  | "import"
  | "no-such-route"
  | "saved-query-procedure"
  | "watch-procedure"
  | "grpc-health"
  | "grpc-reflection"
  | "other";

/** The saved query a route names, or why it names none. */
export type RouteTarget = Endpoint | "malformed-name" | "no-such-endpoint" | "no-endpoint";

/** The router of a port's calls: a target's route, the saved query a routed target names, a call's client. */
export interface CallRouter {
  routeOf(target: string): Route;
  /** The saved query named by `target`, routed to `route`: a GET route's name or id, or a procedure's path. */
  targetOf(route: Route, target: string): RouteTarget;
  /** The client of a call from `peer` with `headers`: the peer, or the client a trusted proxy names (client-address.ts). */
  clientOf(headers: HeaderReader, peer: string): string;
}

export interface CallRouterOptions {
  /** The saved queries, whose routes and procedures it knows. */
  registry: EndpointRegistry;
  /** Proxies whose X-Forwarded-For names a call's client. Default: none, the client is the peer as it is. */
  trustedProxies?: TrustedProxies;
}

/** The routes of the RPC stack; the rest are the GET API's (answered by transport/http). */
const rpcRoutes = new Set<Route>([
  "saved-query-procedure",
  "watch-procedure",
  "grpc-health",
  "grpc-reflection",
  "other",
]);

/** Whether `route` is one of the GET API's, rather than the RPC stack's. */
export function isHttpRoute(route: Route): boolean {
  return !rpcRoutes.has(route);
}

/** Whether `route` is a saved query's procedure (unary or watch), which needs a key. */
export function isKeyedProcedure(route: Route): boolean {
  return route === "saved-query-procedure" || route === "watch-procedure";
}

/** The router of the saved queries of `registry`, with one map of their procedures by gRPC path. */
export function createCallRouter(options: CallRouterOptions): CallRouter {
  const { registry, trustedProxies: trusted } = options;
  const procedures = new Map<string, { endpoint: Endpoint; route: Route }>();
  for (const endpoint of registry.endpoints) {
    procedures.set(`/${endpoint.grpcMethod}`, { endpoint, route: "saved-query-procedure" });
    if (endpoint.grpcWatchMethod !== undefined)
      procedures.set(`/${endpoint.grpcWatchMethod}`, { endpoint, route: "watch-procedure" });
  }
  return {
    routeOf(target) {
      // The hit path's targets: decided without slicing the query string off.
      if (target.startsWith("/api/endpoints/")) return "saved-query";
      const path = pathOf(target);
      switch (path) {
        case "/healthz":
          return "health";
        case "/readyz":
          return "readiness";
        case "/metrics":
          return "metrics";
        case "/openapi.json":
          return "openapi";
        case "/api/endpoints":
          return "listing";
      }
      if (path.startsWith("/api/import/")) return "import";
      if (path === "/api" || path.startsWith("/api/")) return "no-such-route";
      const procedure = procedures.get(path);
      if (procedure !== undefined) return procedure.route;
      if (path.startsWith("/grpc.health.v1.Health/")) return "grpc-health";
      if (path.startsWith("/grpc.reflection.v1.ServerReflection/") || path.startsWith("/grpc.reflection.v1alpha."))
        return "grpc-reflection";
      return "other";
    },
    targetOf(route, target) {
      if (isKeyedProcedure(route)) return procedures.get(pathOf(target))?.endpoint ?? "no-endpoint";
      if (route !== "saved-query") return "no-endpoint";
      const key = endpointKeyOf(pathOf(target));
      if (key === undefined) return "malformed-name";
      return registry.find(key) ?? "no-such-endpoint";
    },
    clientOf:
      trusted === undefined
        ? (_headers, peer) => peer
        : (headers, peer) => clientAddress(peer, headers.get("x-forwarded-for"), trusted),
  };
}

/** `/api/endpoints/<name>` or `/api/endpoints/query/<id>` → the name or id; undefined when malformed. */
function endpointKeyOf(path: string): string | undefined {
  const rest = path.slice("/api/endpoints/".length);
  const segment = rest.startsWith("query/") ? rest.slice("query/".length) : rest;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

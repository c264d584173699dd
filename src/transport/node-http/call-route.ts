// The route of a request, decided once from its target when its call is
// made, and read by every step after: the GET API's routes, a saved query's
// procedure (which needs a key), or the rest of the RPC stack.
import { pathOf } from "./request-handler.js";

/** Where a request goes: a GET route, the import route, a saved query's procedure, or anything else (the Connect router, the explorer). */
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
  | "other";

/** Whether `route` is one of the GET API's (answered by transport/http), rather than the RPC stack's. */
export function isHttpRoute(route: Route): boolean {
  return route !== "saved-query-procedure" && route !== "other";
}

/** The route of a request target; `keyedPaths` are the saved queries' procedure paths. */
export function createRouteOf(keyedPaths: ReadonlySet<string>): (target: string) => Route {
  return (target) => {
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
    return keyedPaths.has(path) ? "saved-query-procedure" : "other";
  };
}

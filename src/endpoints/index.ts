// The endpoint registry: saved queries read from the Protobuf services, their
// parameter rules, and the service that runs one for any transport.
export { savedQueryServices } from "./services.js";
export { createEndpointRegistry } from "./registry.js";
export type { Endpoint, EndpointRegistry } from "./registry.js";
export { isPastSunset, isPastSunsetError, pastSunsetError } from "./version-lifecycle.js";
export type { Deprecation } from "./version-lifecycle.js";
export { createEndpointService } from "./endpoint-service.js";
export type { EndpointService } from "./endpoint-service.js";
export { dryRunAnswer } from "./call-estimates.js";
export type { CacheOutcome, CallContext, EndpointResult, Freshness, PreparedCall } from "./call-types.js";
export { freshnessFrom, isNotCachedError, notCachedError } from "./request-freshness.js";
export type { ComputedResponse } from "./computed-response.js";
export type { BodyName } from "./kept-bodies.js";
export { endpointTables } from "./endpoint-docs.js";
export { resultColumnProblems } from "./result-columns.js";
export type { Scope } from "./scope.js";
export { createWatchHub, defaultTailPollMs } from "./watch-hub.js";
export type { WatchContext, WatchHub, WatchHubOptions, WatchStream } from "./watch-hub.js";
export { watchQueryRow, type WatchQuery } from "./watch-query.js";
export type { WatchListener } from "./watch-delivery.js";
export { createWatchBounds, defaultWatchBounds } from "./watch-bounds.js";
export type { WatchBoundValues, WatchBounds } from "./watch-bounds.js";
export type { PageTokenSecrets } from "./page-token.js";

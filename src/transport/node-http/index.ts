// The call core below the GET routes and the RPC stack: the call, its route, authentication, records, watch
// sessions, cache validators and conditional requests.
export { copyCorsHeaders, handlerThrew, pathOf, queryOf, setCorsHeaders } from "./request-handler.js";
export type {
  CorsHeaders,
  HttpRequest,
  HttpResponse,
  MakeRequestAndResponse,
  RequestAndResponse,
  RequestHandler,
} from "./request-handler.js";
export { asksFreshness, freshnessOfHead, hasBody } from "./request-headers.js";
export { headerReader, headerValue, requestIdFrom } from "./request-headers.js";
export { holdContinue, sendContinue } from "./expect-continue.js";
export { codeName, httpStatusFromCode } from "./http-status.js";
export { authenticateThen, isAuthenticated, validated } from "./authenticated.js";
export type { AuthenticatedCall, AuthenticatedSteps, ValidatedCall } from "./authenticated.js";
export { Call, replyOn, RequestCall, sessionAddress, StreamCall } from "./call.js";
export type { CallHandler, RequestHead, StreamHandler } from "./call.js";
export { corsDecision, noCors } from "./cors-decision.js";
export type { CorsDecision } from "./cors-decision.js";
export { createCallRouter, endpointKeyOf, isHttpRoute, isKeyedProcedure } from "./call-route.js";
export type { CallRouter, CallRouterOptions, Route, RouteTarget } from "./call-route.js";
export { createPreparedCalls } from "./prepared-calls.js";
export type { PreparedCalls } from "./prepared-calls.js";
export { cacheHeaders, cacheName, setCacheHeaders, varyCredential } from "./cache-validators.js";
export type { CacheHeaders, EntityForm } from "./cache-validators.js";
export { isConditional, notModified, requestNotModified, sendNotModified } from "./conditional-request.js";
export { createRecordCall, recordNoCall } from "./call-record.js";
export { recordRateLimited } from "./refusal-record.js";
export type { CallEnd, CallRows, RecordCall } from "./call-record.js";
export { setStatisticsFields, warehouseMsOf, warehouseTimingOf } from "./result-statistics.js";
export { createWatchRevocation } from "./watch-revocation.js";
export type { RevocableKeys, WatchRevocation } from "./watch-revocation.js";
export { createWatchSessions, defaultHeartbeatMs } from "./watch-session.js";
export type { OpenWatch, WatchOpening, WatchSession, WatchWriter } from "./watch-session.js";

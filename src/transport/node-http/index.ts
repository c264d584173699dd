// Node HTTP helpers below both the GET routes (transport/http) and the RPC
// stack (transport/rpc): the call value every step is handed and its route,
// the typed request and response, header reading, the request id, code ->
// HTTP status, and the 500 of a handler that threw; the bare HTTP/2 streams
// the fast paths answer, the one "authenticate, then go on" step, and the
// calls prepared by request.
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

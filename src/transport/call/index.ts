// The call core below the GET routes and the RPC stack: the call, its route, authentication, records, watch
// sessions, cache validators and conditional requests.
export { corsDecision, handlerThrew, holdContinue, noCors, pathOf, queryOf, sendContinue } from "./request-handler.js";
export type {
  CorsDecision,
  CorsHeaders,
  HttpRequest,
  HttpResponse,
  MakeRequestAndResponse,
  RequestAndResponse,
  RequestHandler,
  RequestHead,
  StreamHandler,
} from "./request-handler.js";
export { asksFreshness, freshnessOfHead, hasBody } from "./request-headers.js";
export { headerReader, headerValue, requestIdFrom } from "./request-headers.js";
export { codeName, httpStatusFromCode } from "./http-status.js";
export { authenticateThen, isAuthenticated, validated } from "./authenticated.js";
export type { AuthenticatedCall, AuthenticatedSteps, ValidatedCall } from "./authenticated.js";
export { Call, replyOn, RequestCall, sessionAddress, StreamCall } from "./call.js";
export type { CallHandler } from "./call.js";
export { createCallRouter, isHttpRoute, isKeyedProcedure, type Route } from "./call-route.js";
export { createPreparedCalls } from "./prepared-calls.js";
export { cacheHeaders, setCacheHeaders, varyCredential } from "./cache-validators.js";
export type { CacheHeaders, EntityForm } from "./cache-validators.js";
export { isConditional, notModified, requestNotModified, sendNotModified } from "./conditional-request.js";
export { createRecordCall, recordNoCall } from "./call-record.js";
export { recordRateLimited } from "./refusal-record.js";
export type { RecordCall } from "./call-record.js";
export { statisticsFieldsOf, warehouseTimingOf } from "./result-statistics.js";
export { createWatchRevocation, type RevocableKeys } from "./watch-revocation.js";
export { createWatchSessions } from "./watch-session.js";
export type { OpenWatch, WatchOpening, WatchSession, WatchWriter } from "./watch-session.js";

// GET /api/endpoints/<name> and /api/endpoints/query/<id>: a saved query's
// call from its query string. A target asked before is a known call, its
// prepared call found by the target alone, so that a cache hit is answered
// after one lookup and the authentication (endpoint-call.ts); a target not
// asked before is parsed, its parameters bound, and kept for next time.
import { Code, ConnectError } from "@connectrpc/connect";
import { type Authenticator, isScopedFor } from "../../auth/index.js";
import { type FieldViolation, fieldViolationsOf, invalidArgument } from "../../errors/index.js";
import type { EndpointService } from "../../endpoints/index.js";
import type { Logger } from "../../observability/index.js";
import {
  type AuthenticatedCall,
  type AuthenticatedSteps,
  authenticateThen,
  type Call,
  createPreparedCalls,
  handlerThrew,
  queryOf,
  type ValidatedCall,
  validated,
} from "../node-http/index.js";
import type { EndpointCalls, GetCall } from "./endpoint-call.js";
import { asksEventStream, type ServeEventStream } from "./event-stream.js";
import { sendError } from "./error-body.js";
import { requestFromQueryString } from "./query-string.js";

export interface SavedQueryRouteOptions {
  service: EndpointService;
  authenticate: Authenticator;
  logger: Logger;
  calls: EndpointCalls;
  /** Serves GETs asking for text/event-stream; without it they are answered as any GET. Default: none. */
  eventStreams?: ServeEventStream;
  /** Answers a refused authentication, counted as the routes count refusals. */
  refuse(call: Call, error: unknown): void;
}

/**
 * `servedKnown` takes a GET or HEAD of a target asked before (true when it
 * did: authenticated, then answered); `serve` a call of a target not asked
 * before, its caller authenticated.
 */
export function createSavedQueryRoute(options: SavedQueryRouteOptions) {
  const { service, calls, eventStreams } = options;
  const preparedCalls = createPreparedCalls();

  function serve(call: AuthenticatedCall): void {
    const { credential } = call;
    const fail = (error: unknown) => sendError(call.exchange(), call.requestId, error);
    const url = call.head.url ?? "/";
    const endpoint = call.target;
    if (endpoint === "malformed-name")
      return fail(new ConnectError("malformed endpoint name in path", Code.InvalidArgument));
    if (typeof endpoint !== "object") return fail(new ConnectError("no endpoint of that name or id", Code.NotFound));
    const { request: message, violations, format, dryRun } = requestFromQueryString(endpoint, queryOf(url));
    let prepared: GetCall;
    try {
      prepared = service.prepare(endpoint, message, credential);
    } catch (error) {
      return calls.reject(call, endpoint, withViolations(violations, error));
    }
    if (violations.length > 0) return calls.reject(call, endpoint, invalidArgument(violations));
    // A dry run, after the same credential, scope and parameter checks: the estimate, never the query.
    if (dryRun === true) return calls.answerDryRun(validated(call, prepared));
    if (format !== undefined) prepared = { ...prepared, format }; // the body's format only: the same rows, the same cache entry
    // A call prepared under a scope of this endpoint depends on the credential too: only unscoped calls are kept by target.
    // Each page's target is new, so calls with a page token are not kept.
    // A version with a sunset is prepared each time, so that the sunset is checked on each call.
    if (
      !isScopedFor(credential, endpoint) &&
      prepared.page?.token === undefined &&
      endpoint.deprecation?.sunsetAt === undefined
    )
      preparedCalls.remember(url, prepared);
    const ready = validated(call, prepared);
    if (eventStreams === undefined || !asksEventStream(call)) return calls.answer(ready);
    try {
      eventStreams(ready, message);
    } catch (error) {
      calls.reject(ready, ready.prepared.endpoint, error);
    }
  }

  /** After a known call's authentication: a hit, its caller unscoped, in one write; the rest as a first call. */
  const knownSteps: AuthenticatedSteps = {
    admitted(call) {
      // servedKnown prepared it before authentication.
      if (!isValidated(call) || isScopedFor(call.credential, call.prepared.endpoint)) return serve(call);
      if (!calls.answerHit(call)) calls.answer(call);
    },
    refuse: (call, error) => options.refuse(call, error),
    failed: (call, error) => handlerThrew(...call.exchange(), error, options.logger),
  };

  return {
    servedKnown(call: Call): boolean {
      const method = call.head.method;
      if (method !== "GET" && method !== "HEAD") return false;
      if (eventStreams !== undefined && asksEventStream(call)) return false;
      const known = preparedCalls.find(call.head.url ?? "/");
      if (known === undefined) return false;
      call.prepared = known;
      authenticateThen(options.authenticate, call, knownSteps);
      return true;
    },
    serve,
  };
}

function isValidated(call: AuthenticatedCall): call is ValidatedCall {
  return call.prepared !== undefined;
}

/**
 * One INVALID_ARGUMENT for the query string's problems and those `error`
 * found in the values, each field named once (a repeated parameter left out
 * of the request is not also reported missing).
 */
function withViolations(violations: FieldViolation[], error: unknown): unknown {
  if (violations.length === 0 || !(error instanceof ConnectError) || error.code !== Code.InvalidArgument) return error;
  const named = new Set(violations.map((v) => v.field));
  return invalidArgument([...violations, ...fieldViolationsOf(error).filter((v) => !named.has(v.field))]);
}

// The fast path of RPC cache hits: a unary Connect, gRPC or gRPC-Web call of
// a cached saved query, its caller authenticated, is answered from the bytes
// its cached result keeps (message-encodings.ts), without the Connect
// router. It only ever answers hits: anything else (a request it does not
// read as the router would, a message that does not parse, parameters that
// do not validate, a miss) goes to the router with the body it read
// replayed, and is answered by the router, errors included.
import { isScopedFor } from "../../auth/index.js";
import type {
  Endpoint,
  EndpointRegistry,
  EndpointResult,
  EndpointService,
  PreparedCall,
} from "../../endpoints/index.js";
import {
  asksFreshness,
  type Call,
  type CallHandler,
  createPreparedCalls,
  isConditional,
  type RecordCall,
} from "../node-http/index.js";
import { type CallLog, loggedCallOf } from "./logging-interceptor.js";
import type { ConnectRouterHandler } from "./connect-router.js";
import { canCompress, type EncodedMessage, type MessageEncodings } from "./message-encodings.js";
import { routerContextFor } from "./router-call-record.js";
import { statisticsFieldsOf } from "./statistics-trailers.js";
import { bodyBytes, type ReadBody, readBody, replayedBody } from "./request-body.js";
import { writeUnaryAnswer } from "./unary-answer.js";
import { createRevalidation, errorAnswered } from "./connect-get-revalidation.js";
import { fastPathCacheHeaders, answeredNotModified } from "./fast-path-cache.js";
import { messageOfBody, messageOfQuery, type UnaryRequestForm, unaryRequestForm } from "./unary-request.js";

export interface UnaryFastPathOptions {
  registry: EndpointRegistry;
  service: EndpointService;
  /** Answers every call the fast path does not. */
  router: ConnectRouterHandler;
  encodings: MessageEncodings;
  /** The call log and metrics the router's interceptor writes too. */
  log: CallLog;
  /** Records each hit it answers in the call log. */
  record?: RecordCall;
  /** Largest request message, as the router bounds it. */
  maxBodyBytes: number;
  /** STALE_IF_ERROR_SECONDS, named in Cache-Control; 0 names none. Default 3600. */
  staleIfErrorSeconds?: number;
  /** Prepared calls remembered by request. Default 10,000 and 8 MiB of request bytes. */
  preparedCalls?: { maxEntries?: number; maxChars?: number };
}

/** A saved query's procedure: its endpoint, and the prepared calls' groups of its messages in either form. */
interface Procedure {
  endpoint: Endpoint;
  groups: { binary: string; json: string };
}

export interface UnaryFastPath {
  /**
   * Serves an authenticated call of a saved query: from the cache when it is
   * a plain unary hit, else through the router.
   */
  serve: CallHandler;
}

export function createUnaryFastPath(options: UnaryFastPathOptions): UnaryFastPath {
  const { service, router, encodings, log, record, maxBodyBytes } = options;
  // Each saved query with the prepared calls' group of its messages in either form: made once, so that each is one
  // string.
  const procedures = new Map<Endpoint, Procedure>(
    options.registry.endpoints.map((e) => [
      e,
      { endpoint: e, groups: { binary: `${e.grpcMethod} proto`, json: `${e.grpcMethod} json` } },
    ]),
  );
  const preparedCalls = createPreparedCalls(options.preparedCalls?.maxEntries, options.preparedCalls?.maxChars);
  const accepted = router.acceptCompression;
  const staleIfErrorSeconds = options.staleIfErrorSeconds ?? 3600;
  const revalidate = createRevalidation({ service, log });

  /**
   * Answers the call if its result is cached: true when it did. `request` is
   * the message bytes of a POST, or the target of a Connect GET, whose query
   * holds the message; either names the request among the prepared calls.
   */
  function answerHit(call: Call, procedure: Procedure, form: UnaryRequestForm, request: Buffer | string): boolean {
    const { endpoint } = procedure;
    call.started = performance.now();
    const prepared = prepare(call, procedure, form, request);
    if (prepared === undefined) return false;
    const hit = service.peek(prepared);
    return answered(call, endpoint, form, hit);
  }

  /** The call prepared from `request`, remembered when unscoped; undefined when the router must answer it. */
  function prepare(
    call: Call,
    procedure: Procedure,
    form: UnaryRequestForm,
    request: Buffer | string,
  ): PreparedCall | undefined {
    const { endpoint, groups } = procedure;
    const credential = call.credential!;
    // A call prepared under a scope of this endpoint depends on the credential too: only unscoped calls are kept.
    const scoped = isScopedFor(credential, endpoint);
    const group = typeof request === "string" ? "GET" : form.binary ? groups.binary : groups.json;
    const key = typeof request === "string" ? request : request.toString("latin1");
    let prepared: PreparedCall | undefined = scoped ? undefined : preparedCalls.find(key, group);
    if (prepared === undefined) {
      const bytes = typeof request === "string" ? messageOfQuery(request, maxBodyBytes) : request;
      if (bytes === undefined) return undefined;
      try {
        prepared = service.prepare(endpoint, encodings.parse(endpoint.method, form.binary, bytes), credential);
      } catch {
        return undefined; // the router parses and prepares it again, and answers its error
      }
      if (!scoped) preparedCalls.remember(key, prepared, group);
    }
    return prepared;
  }

  /** Answers `hit` (a 304 to a Connect GET whose caller holds it): true when it did. */
  function answered(call: Call, endpoint: Endpoint, form: UnaryRequestForm, hit: EndpointResult | undefined): boolean {
    if (hit === undefined) return false;
    const cache = fastPathCacheHeaders(call, hit, form, staleIfErrorSeconds);
    if (form.get && answeredNotModified(call, hit, cache)) {
      logHit(call, endpoint, form, hit);
      return true;
    }
    let encoded: EncodedMessage;
    try {
      encoded = encodings.encoded(hit, endpoint.method, form);
    } catch {
      return false; // rows that do not fit the message: the router answers INTERNAL and logs it
    }
    writeUnaryAnswer(call, form, encoded, {
      cache,
      "x-request-id": call.requestId,
      statistics: statisticsFieldsOf(hit),
    });
    call.responseBytes = encoded.bytes.length;
    logHit(call, endpoint, form, hit);
    return true;
  }

  /** Logs and records a hit this path answered. */
  function logHit(call: Call, endpoint: Endpoint, form: UnaryRequestForm, hit: EndpointResult): void {
    log(loggedCallOf(call, endpoint, form.protocol), "ok");
    record?.(call, {
      endpoint: endpoint.definition.name,
      protocol: form.protocol,
      code: "ok",
      result: hit,
      responseBytes: call.responseBytes,
    });
  }

  /** Hands the call to the router, with what was read of its body replayed. */
  function toRouter(call: Call, read?: ReadBody): void {
    // A bare stream's body, read in part, comes on through the request, which reads the stream from then on.
    const [request, response] = call.exchange();
    router.serve(request, response, routerContextFor(call, response, record), read && replayedBody(read, request));
  }

  /** Executes a conditional Connect GET as its freshness asks, then answers its result (a 304 when it matches). */
  function revalidateGet(call: Call, procedure: Procedure, form: UnaryRequestForm): void {
    const prepared = prepare(call, procedure, form, call.head.url ?? "/");
    if (prepared === undefined) return toRouter(call);
    call.started = performance.now();
    // revalidate answers its own errors, so its promise never rejects.
    void revalidate(call, procedure.endpoint, form, prepared).then((result) => {
      if (result !== errorAnswered && !answered(call, procedure.endpoint, form, result)) toRouter(call);
    });
  }

  const serve: CallHandler = (call) => {
    const url = call.head.url ?? "/";
    // The unary procedures only: a watch stream is the router's.
    const endpoint = call.route === "saved-query-procedure" ? call.endpoint : undefined;
    const procedure = endpoint && procedures.get(endpoint);
    if (procedure === undefined) return toRouter(call);
    const form = unaryRequestForm(call.head, procedure.endpoint.method, accepted);
    if (form === undefined || !canCompress(form.compression)) return toRouter(call);
    // A conditional Connect GET is answered here, 304 when its result still matches, whatever it is (a miss, uncached).
    const conditionalGet = form.get && isConditional(call.head.headers);
    // A caller's freshness directive is execute's to read: the router's, or a conditional Connect GET's here.
    if (asksFreshness(call.head.headers)) return conditionalGet ? revalidateGet(call, procedure, form) : toRouter(call);
    if (form.get) {
      // The message is in the query string, which names the call whole.
      if (answerHit(call, procedure, form, url)) return;
      return conditionalGet ? revalidateGet(call, procedure, form) : toRouter(call);
    }
    // The envelope's 5 bytes on top of the message bound: one byte more is the router's to refuse.
    readBody(call.body, maxBodyBytes + 5, (read) => {
      const bytes = read.whole ? messageOfBody(form, bodyBytes(read), maxBodyBytes) : undefined;
      if (bytes !== undefined && answerHit(call, procedure, form, bytes)) return;
      toRouter(call, read);
    });
  };

  return { serve };
}

// The fast path of RPC cache hits: a unary call of a cached saved query answered from the bytes its result keeps,
// without the router (a tenth of its CPU a hit, by the bench); anything else goes to the router, its body replayed.
import { isScopedFor } from "../../auth/index.js";
import type { Endpoint, EndpointRegistry, EndpointService, PreparedCall } from "../../endpoints/index.js";
import {
  asksFreshness,
  type AuthenticatedCall,
  createPreparedCalls,
  isConditional,
  type RecordCall,
  statisticsFieldsOf,
} from "../call/index.js";
import type { Compression } from "./connect-internals.js";
import { type CallLines, loggedCallOf } from "./logging-interceptor.js";
import { canCompress, type EncodedMessage, type MessageEncodings } from "./message-encodings.js";
import { bodyBytes, type ReadBody, readBody } from "./request-body.js";
import { rpcCacheHeaders } from "./rpc-cache-headers.js";
import { writeUnaryAnswer } from "./unary-answer.js";
import { messageOfBody, messageOfQuery, type UnaryRequestForm, unaryRequestForm } from "./unary-request.js";

export interface UnaryFastPathOptions {
  registry: EndpointRegistry;
  service: EndpointService;
  /** Hands every call the fast path does not answer to the router, with what was read of its body replayed. */
  toRouter(call: AuthenticatedCall, read?: ReadBody): void;
  /** The compressions the router accepts, in its order. */
  acceptCompression: readonly Compression[];
  encodings: MessageEncodings;
  /** The log lines and metrics the router's interceptor writes too. */
  log: CallLines;
  /** Records each hit it answers in the call log. */
  record?: RecordCall;
  /** Largest request message, as the router bounds it. */
  maxBodyBytes: number;
  /** STALE_IF_ERROR_SECONDS, named in Cache-Control; 0 names none. Default 3600. */
  staleIfErrorSeconds?: number;
  /** Binds the body's reading to the call's context, so that a traced call's span stays current. Default: none. */
  bindContext?: <F extends (...args: never[]) => unknown>(work: F) => F;
}

/** A saved query's procedure: its endpoint, and the prepared calls' groups of its messages in either form. */
interface Procedure {
  endpoint: Endpoint;
  groups: { binary: string; json: string };
}

/** Serves an authenticated call of a saved query: from the cache when it is a plain unary hit, else through the router. */
export function createUnaryFastPath(options: UnaryFastPathOptions): { serve(call: AuthenticatedCall): void } {
  const { service, toRouter, encodings, log, record, maxBodyBytes, bindContext } = options;
  // Each group made once, so that each is one string. A deprecated version is the router's: its answers carry
  // Deprecation and Sunset, and its sunset is checked each call.
  const procedures = new Map<Endpoint, Procedure>(
    options.registry.endpoints
      .filter((e) => e.deprecation === undefined)
      .map((e) => [e, { endpoint: e, groups: { binary: `${e.grpcMethod} proto`, json: `${e.grpcMethod} json` } }]),
  );
  const preparedCalls = createPreparedCalls();
  const accepted = options.acceptCompression;
  const staleIfErrorSeconds = options.staleIfErrorSeconds ?? 3600;

  /** The call prepared from `request`, remembered when unscoped; undefined when the router must answer it. */
  function prepare(call: AuthenticatedCall, procedure: Procedure, binary: boolean, request: Buffer | string) {
    const { endpoint, groups } = procedure;
    const credential = call.credential;
    // A call prepared under a scope of this endpoint depends on the credential too: only unscoped calls are kept.
    const scoped = isScopedFor(credential, endpoint);
    const group = typeof request === "string" ? "GET" : binary ? groups.binary : groups.json;
    const key = typeof request === "string" ? request : request.toString("latin1");
    let prepared: PreparedCall | undefined = scoped ? undefined : preparedCalls.find(key, group);
    if (prepared === undefined) {
      const bytes = typeof request === "string" ? messageOfQuery(request, maxBodyBytes) : request;
      if (bytes === undefined) return undefined;
      try {
        prepared = service.prepare(endpoint, encodings.parse(endpoint.method, binary, bytes), credential);
      } catch {
        return undefined; // the router parses and prepares it again, and answers its error
      }
      if (!scoped) preparedCalls.remember(key, prepared, group);
    }
    return prepared;
  }

  /**
   * Answers the call if its result is cached: true when it did. `request` is the message bytes of a POST, or the
   * target of a Connect GET, whose query holds the message; either names the request among the prepared calls.
   */
  function answerHit(call: AuthenticatedCall, procedure: Procedure, form: UnaryRequestForm, request: Buffer | string) {
    const endpoint = procedure.endpoint;
    call.started = performance.now();
    const prepared = prepare(call, procedure, form.binary, request);
    const hit = prepared === undefined ? undefined : service.peek(prepared);
    if (hit === undefined) return false;
    const cache = rpcCacheHeaders(hit, form.binary, call.cors, staleIfErrorSeconds);
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
    log(loggedCallOf(call, endpoint, form.protocol), "ok");
    const name = endpoint.definition.name;
    const responseBytes = call.responseBytes;
    record?.(call, { endpoint: name, protocol: form.protocol, code: "ok", result: hit, responseBytes });
    return true;
  }

  const serve = (call: AuthenticatedCall): void => {
    // The unary procedures only: a watch stream is the router's.
    const endpoint = call.route === "saved-query-procedure" ? call.endpoint : undefined;
    const procedure = endpoint && procedures.get(endpoint);
    if (procedure === undefined) return toRouter(call);
    const form = unaryRequestForm(call.head, procedure.endpoint.method, accepted);
    if (form === undefined || !canCompress(form.compression)) return toRouter(call);
    // A caller's freshness directive is execute's to read, a conditional Connect GET (304) the router's, and a dry
    // run (x-dry-run) the router's too: it answers an estimate, not the result.
    const headers = call.head.headers;
    if (asksFreshness(headers) || (form.get && isConditional(headers)) || headers["x-dry-run"] !== undefined)
      return toRouter(call);
    // A Connect GET's message is in the query string, which names the call whole.
    if (form.get) return answerHit(call, procedure, form, call.head.url ?? "/") ? undefined : toRouter(call);
    // The envelope's 5 bytes on top of the message bound: one byte more is the router's to refuse.
    const bodyRead = (read: ReadBody) => {
      const bytes = read.whole ? messageOfBody(form, bodyBytes(read), maxBodyBytes) : undefined;
      if (bytes !== undefined && answerHit(call, procedure, form, bytes)) return;
      toRouter(call, read);
    };
    readBody(call.body, maxBodyBytes + 5, bindContext === undefined ? bodyRead : bindContext(bodyRead));
  };

  return { serve };
}

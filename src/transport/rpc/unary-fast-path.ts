// The fast path of RPC cache hits: a unary Connect, gRPC or gRPC-Web call of
// a cached saved query, its caller authenticated, is answered from the bytes
// its cached result keeps (message-encodings.ts), without the Connect
// router. It only ever answers hits: anything else (a request it does not
// read as the router would, a message that does not parse, parameters that
// do not validate, a miss) goes to the router with the body it read
// replayed, and is answered exactly as it always was, errors included.
import type { Readable } from "node:stream";
import { type Credential, isScoped } from "../../auth/index.js";
import type { Endpoint, EndpointRegistry, EndpointService, PreparedCall } from "../../endpoints/index.js";
import {
  type CorsHeaders,
  createPreparedCalls,
  headerReader,
  type HttpRequest,
  type HttpResponse,
  pathOf,
  type RequestHead,
  requestIdFrom,
  setCorsHeaders,
  streamHead,
  type StreamHandler,
} from "../node-http/index.js";
import type { CallLog, LoggedCall } from "./logging-interceptor.js";
import { contextFor } from "./request-context.js";
import type { ConnectRouterHandler } from "./connect-router.js";
import { canCompress, type EncodedMessage, type MessageEncodings } from "./message-encodings.js";
import { bodyBytes, type ReadBody, readBody, replayedBody } from "./request-body.js";
import { type AnswerTarget, type WritableResponse, writeUnaryAnswer } from "./unary-answer.js";
import { messageOfBody, messageOfQuery, type UnaryRequestForm, unaryRequestForm } from "./unary-request.js";

export interface UnaryFastPathOptions {
  registry: EndpointRegistry;
  service: EndpointService;
  /** Answers every call the fast path does not. */
  router: ConnectRouterHandler;
  encodings: MessageEncodings;
  /** The call log and metrics the router's interceptor writes too. */
  log: CallLog;
  /** Largest request message, as the router bounds it. */
  maxBodyBytes: number;
  /** Prepared calls remembered by request. Default 10,000 and 8 MiB of request bytes. */
  preparedCalls?: { maxEntries?: number; maxChars?: number };
}

/** Where a call came from: a Node request and response, or a bare HTTP/2 stream. */
interface CallSource {
  head: RequestHead;
  /** The body's source. */
  body: Readable;
  /** Where an answer goes. */
  target(): AnswerTarget;
  /** Hands the call to the router, with what was read of the body replayed. */
  toRouter(read?: ReadBody): void;
}

export interface UnaryFastPath {
  /**
   * Serves an authenticated call of a saved query: from the cache when it is
   * a plain unary hit, else through the router; `corsHeaders` as an
   * CorsHandler is given them.
   */
  serve(request: HttpRequest, response: HttpResponse, credential: Credential, corsHeaders?: CorsHeaders): void;
  /** The same for a bare HTTP/2 stream; its request and response are made only for the router. */
  stream: KeyedStreamHandler;
}

/** A bare HTTP/2 stream of a call that needs a key, with the credential the gate found. */
export type KeyedStreamHandler = (...args: [...Parameters<StreamHandler>, credential: Credential]) => void;

export function createUnaryFastPath(options: UnaryFastPathOptions): UnaryFastPath {
  const { service, router, encodings, log, maxBodyBytes } = options;
  // Each procedure's endpoint by path, with the prepared calls' group of its messages in either form: made once, so
  // that each is one string.
  const procedures = new Map(
    options.registry.endpoints.map((e) => [
      `/${e.grpcMethod}`,
      { endpoint: e, groups: { binary: `${e.grpcMethod} proto`, json: `${e.grpcMethod} json` } },
    ]),
  );
  const prepared = createPreparedCalls(options.preparedCalls?.maxEntries, options.preparedCalls?.maxChars);
  const accepted = router.acceptCompression;

  /**
   * Answers the call if its result is cached: true when it did. `key` names
   * the request in the prepared calls' `group`, `message` reads its message
   * bytes.
   */
  function answerHit(
    source: CallSource,
    endpoint: Endpoint,
    form: UnaryRequestForm,
    credential: Credential,
    group: string,
    key: string,
    message: () => Buffer | undefined,
  ): boolean {
    const started = performance.now();
    // A call prepared under a scope depends on the credential too: only unscoped calls are kept.
    const scoped = isScoped(credential);
    let call: PreparedCall | undefined = scoped ? undefined : prepared.find(key, group);
    if (call === undefined) {
      const bytes = message();
      if (bytes === undefined) return false;
      try {
        call = service.prepare(endpoint, encodings.parse(endpoint.method, form.binary, bytes), credential);
      } catch {
        return false; // the router parses and prepares it again, and answers its error
      }
      if (!scoped) prepared.remember(key, call, group);
    }
    const hit = service.peek(call, credential.id);
    if (hit === undefined) return false;
    let encoded: EncodedMessage;
    try {
      encoded = encodings.encoded(hit, endpoint.method, form.binary, form.compression, form.protocol !== "connect");
    } catch {
      return false; // rows that do not fit the message: the router answers INTERNAL and logs it
    }
    const requestId = requestIdFrom(headerReader(source.head.headers));
    writeUnaryAnswer(source.target(), form, encoded, {
      age: hit.cache === undefined ? undefined : String(hit.cache.ageSeconds),
      "x-cache": hit.cache?.status,
      "x-request-id": requestId,
    });
    // One literal, not a spread of the named parts plus the rest: V8 builds that spread slowly
    // (docs/cache-hit-profiling.md).
    const loggedCall: LoggedCall = {
      method: endpoint.method,
      procedure: endpoint.grpcMethod,
      endpoint: endpoint.definition.name,
      protocol: form.protocol,
      requestId,
      caller: credential.id,
      started,
    };
    log(loggedCall, "ok");
    return true;
  }

  function serveCall(source: CallSource, credential: Credential): void {
    const url = source.head.url ?? "/";
    const procedure = procedures.get(pathOf(url));
    if (procedure === undefined) return source.toRouter();
    const { endpoint, groups } = procedure;
    const form = unaryRequestForm(source.head, endpoint.method, accepted);
    if (form === undefined || !canCompress(form.compression)) return source.toRouter();
    if (form.get) {
      // The message is in the query string, which names the call whole.
      const message = () => messageOfQuery(url, maxBodyBytes);
      if (!answerHit(source, endpoint, form, credential, "GET", url, message)) source.toRouter();
      return;
    }
    // The envelope's 5 bytes on top of the message bound: one byte more is the router's to refuse.
    readBody(source.body, maxBodyBytes + 5, (read) => {
      const bytes = read.whole ? messageOfBody(form, bodyBytes(read), maxBodyBytes) : undefined;
      if (bytes !== undefined) {
        const group = form.binary ? groups.binary : groups.json;
        if (answerHit(source, endpoint, form, credential, group, bytes.toString("latin1"), () => bytes)) return;
      }
      source.toRouter(read);
    });
  }

  return {
    serve(request, response, credential, corsHeaders) {
      serveCall(
        {
          head: request,
          body: request,
          // Through the response, which holds the stream's trailers on HTTP/2.
          target: () => ({ response: response as unknown as WritableResponse, corsHeaders }),
          toRouter(read) {
            setCorsHeaders(response, corsHeaders);
            router.serve(request, response, contextFor(credential), read && replayedBody(read, request));
          },
        },
        credential,
      );
    },
    stream(stream, headers, toRequest, corsHeaders, credential) {
      serveCall(
        {
          head: streamHead(headers),
          body: stream,
          target: () => ({ stream, corsHeaders }),
          toRouter(read) {
            // The rest of a body read in part comes through the request, which reads the stream from then on.
            const [request, response] = toRequest();
            router.serve(request, response, contextFor(credential), read && replayedBody(read, request));
          },
        },
        credential,
      );
    },
  };
}

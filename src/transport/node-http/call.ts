// One request on its way through the port, as one value handed from step to
// step (as connect-es's HandlerContext and hono's Context are): its head,
// route, CORS decision, client address, request id, credential, prepared
// call and start time, and how to answer it. It comes as a Node request and
// response, or as a bare HTTP/2 stream whose request and response are made
// only for answers other than a hit's one write.
import type { IncomingHttpHeaders, ServerHttp2Stream } from "node:http2";
import type { Readable } from "node:stream";
import type { Credential, HeaderReader } from "../../auth/index.js";
import type { Endpoint, PreparedCall } from "../../endpoints/index.js";
import { type RequestHead, streamAddress, streamHead } from "./bare-stream.js";
import type { Route, CallRouter, RouteTarget } from "./call-route.js";
import {
  copyCorsHeaders,
  type HttpRequest,
  type HttpResponse,
  type MakeRequestAndResponse,
  type RequestAndResponse,
  setCorsHeaders,
} from "./request-handler.js";
import { requestIdFrom } from "./request-id.js";
import { headerValue } from "./request-headers.js";
import type { CorsDecision } from "./cors-decision.js";

/** A call as every step of the request path reads and answers it. */
export interface Call extends HeaderReader {
  /** Method, target and headers. */
  readonly head: RequestHead;
  /** Decided once, by the router (create-app.ts), before any route's handler reads it. */
  route: Route;
  /** The saved query the route names, or why none: looked up on first read, from the table that decided the route. */
  readonly target: RouteTarget;
  /** The saved query the route names; undefined when it names none. */
  readonly endpoint: Endpoint | undefined;
  /** The client the call comes from (trusted proxies applied by the router); read on first use. */
  readonly client: string;
  /** Decides the call's route from its target with `router` (the router's one step). */
  routeWith(router: CallRouter): void;
  readonly cors: CorsDecision;
  /** The client address of the connection. */
  readonly address: string;
  /** The caller's `x-request-id` when sane, else a new one; read on first use. */
  readonly requestId: string;
  /** The caller, once authenticated. */
  credential: Credential | undefined;
  /** The saved query's call, once prepared (with the body format a GET target named). */
  prepared: (PreparedCall & { format?: number }) | undefined;
  /** performance.now() when the call's answer was begun. */
  started: number;
  /** Bytes of the answer's body as written (0 until then, and for HEAD and 304). */
  responseBytes: number;
  /** The request body's source. */
  readonly body: Readable;
  /** The bare HTTP/2 stream the call came on; undefined for a Node request. */
  readonly stream: ServerHttp2Stream | undefined;
  /** A Node request's response as it came (see corsHeadersToWrite); undefined for a bare stream. */
  readonly response: HttpResponse | undefined;
  /** A new header object holding the CORS headers, unless they are set on the response already: an answer's own go after. */
  corsHeadersToWrite(): Record<string, string>;
  /** Writes a whole answer at once: status, `headers` (the CORS ones first, see corsHeadersToWrite), the body unless HEAD. */
  reply(status: number, headers: Record<string, string | number>, body: Buffer): void;
  /** The request and response, the CORS headers set on the response: how every answer but `reply`'s is written. */
  exchange(): RequestAndResponse;
}

/** A step of the request path. */
export type CallHandler = (call: Call) => void;

/** What every call holds and reads the same way, however it came: its steps' state, request id and headers. */
abstract class CallState {
  route: Route = "other";
  credential: Credential | undefined = undefined;
  prepared: Call["prepared"] = undefined;
  started = 0;
  responseBytes = 0;
  private id: string | undefined = undefined;
  private router: CallRouter | undefined = undefined;
  private foundTarget: RouteTarget | undefined = undefined;
  private foundClient: string | undefined = undefined;

  constructor(readonly cors: CorsDecision) {}

  abstract get head(): RequestHead;
  abstract get address(): string;

  routeWith(router: CallRouter): void {
    this.router = router;
    this.route = router.routeOf(this.head.url ?? "/");
  }
  get target(): RouteTarget {
    return (this.foundTarget ??= this.router?.targetOf(this.route, this.head.url ?? "/") ?? "no-endpoint");
  }
  get client(): string {
    return (this.foundClient ??= this.router?.clientOf(this, this.address) ?? this.address);
  }
  get endpoint(): Endpoint | undefined {
    const target = this.target;
    return typeof target === "object" ? target : undefined;
  }

  get requestId(): string {
    return (this.id ??= requestIdFrom(this));
  }
  get(name: string): string | null {
    return headerValue(this.head.headers, name);
  }
}

/** A call that came as a Node request and response (HTTP/1.1, or HTTP/2 through Node's compatibility layer). */
export class RequestCall extends CallState implements Call {
  readonly stream = undefined;
  private corsHeadersSet = false;
  private pair: RequestAndResponse | undefined = undefined;

  constructor(
    readonly request: HttpRequest,
    readonly response: HttpResponse,
    cors: CorsDecision,
  ) {
    super(cors);
  }

  get head(): RequestHead {
    return this.request;
  }
  get body(): Readable {
    return this.request;
  }
  get address(): string {
    return this.request.socket?.remoteAddress ?? "";
  }
  corsHeadersToWrite(): Record<string, string> {
    return this.corsHeadersSet ? {} : copyCorsHeaders(this.cors.headers);
  }
  reply(status: number, headers: Record<string, string | number>, body: Buffer): void {
    const writable = this.response as unknown as {
      writeHead(status: number, headers: Record<string, string | number>): void;
      end(body?: Buffer): void;
    };
    writable.writeHead(status, headers);
    writable.end(this.request.method === "HEAD" ? undefined : body);
  }
  exchange(): RequestAndResponse {
    if (!this.corsHeadersSet) {
      this.corsHeadersSet = true;
      setCorsHeaders(this.response, this.cors.headers);
    }
    return (this.pair ??= [this.request, this.response]);
  }
}

/** A call that came as a bare HTTP/2 stream, before Node's compatibility layer. */
export class StreamCall extends CallState implements Call {
  readonly head: RequestHead;
  readonly response = undefined;
  private made: RequestAndResponse | undefined = undefined;

  constructor(
    readonly stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    private readonly makeRequestAndResponse: MakeRequestAndResponse,
    cors: CorsDecision,
  ) {
    super(cors);
    this.head = streamHead(headers);
  }

  get body(): Readable {
    return this.stream;
  }
  get address(): string {
    return streamAddress(this.stream);
  }
  corsHeadersToWrite(): Record<string, string> {
    return this.made === undefined ? copyCorsHeaders(this.cors.headers) : {};
  }
  reply(status: number, headers: Record<string, string | number>, body: Buffer): void {
    if (this.made !== undefined) return replyOn(this.made, status, headers, body);
    const stream = this.stream;
    // A caller that reset its stream meanwhile is answered nothing: writing to it would throw.
    if (stream.destroyed || stream.closed) return;
    headers[":status"] = status;
    if (this.head.method === "HEAD") {
      stream.respond(headers, { endStream: true });
    } else {
      stream.respond(headers);
      stream.end(body);
    }
  }
  exchange(): RequestAndResponse {
    if (this.made === undefined) {
      this.made = this.makeRequestAndResponse();
      const [, response] = this.made;
      setCorsHeaders(response, this.cors.headers);
    }
    return this.made;
  }
}

/** Writes a whole answer on a Node response: one writeHead, then the body unless the request was HEAD. */
export function replyOn(
  [request, response]: RequestAndResponse,
  status: number,
  headers: Record<string, string | number>,
  body: Buffer,
): void {
  const writable = response as unknown as {
    writeHead(status: number, headers: Record<string, string | number>): void;
    end(body?: Buffer): void;
  };
  writable.writeHead(status, headers);
  writable.end(request.method === "HEAD" ? undefined : body);
}

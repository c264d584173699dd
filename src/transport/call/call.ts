// One request on its way through the port, as one value handed from step to step (connect-es's HandlerContext,
// hono's Context): its head, route, peer and client addresses, credential, prepared call, and how to answer it.
import type { Http2Session, IncomingHttpHeaders, ServerHttp2Stream } from "node:http2";
import type { Readable } from "node:stream";
import type { Credential, HeaderReader } from "../../auth/index.js";
import type { Endpoint, PreparedCall } from "../../endpoints/index.js";
import type { CallRouter, Route, RouteTarget } from "./call-route.js";
import { headerValue, requestIdFrom } from "./request-headers.js";
import {
  type CorsDecision,
  copyCorsHeaders,
  type HttpRequest,
  type HttpResponse,
  type MakeRequestAndResponse,
  type RequestAndResponse,
  type RequestHead,
  setCorsHeaders,
} from "./request-handler.js";

/** Each session's client address, read once: its socket looks its peer up afresh on each read. */
const sessionAddresses = new WeakMap<Http2Session, string>();

/** The client address of an HTTP/2 session's connection. */
export function sessionAddress(session: Http2Session): string {
  let address = sessionAddresses.get(session);
  if (address === undefined) {
    address = session.socket?.remoteAddress ?? "";
    sessionAddresses.set(session, address);
  }
  return address;
}

/** A call as every step of the request path reads and answers it. */
export abstract class Call implements HeaderReader {
  /** Decided once, by the router (create-app.ts), before any route's handler reads it. */
  route: Route = "other";
  /** The caller, once authenticated. */
  credential: Credential | undefined = undefined;
  /** The saved query's call, once prepared (with the body format a GET target named). */
  prepared: (PreparedCall & { format?: number }) | undefined = undefined;
  /** performance.now() when the call's answer was begun. */
  started = 0;
  /** Bytes of the answer's body as written (0 until then, and for HEAD and 304). */
  responseBytes = 0;
  private id: string | undefined = undefined;
  private router: CallRouter | undefined = undefined;
  private foundTarget: RouteTarget | undefined = undefined;
  private foundClient: string | undefined = undefined;

  constructor(readonly cors: CorsDecision) {}

  /** Method, target and headers. */
  abstract readonly head: RequestHead;
  /** The address of the connection's peer (a proxy, when there is one). */
  abstract readonly peerAddress: string;
  abstract readonly body: Readable;
  /** The bare HTTP/2 stream the call came on; undefined for a Node request. */
  abstract readonly stream: ServerHttp2Stream | undefined;
  /** A Node request's response as it came (see corsHeadersToWrite); undefined for a bare stream. */
  abstract readonly response: HttpResponse | undefined;
  /** A new header object holding the CORS headers, unless they are set on the response already: an answer's own go after. */
  abstract corsHeadersToWrite(): Record<string, string>;
  /** Writes a whole answer at once: status, `headers` (the CORS ones first, see corsHeadersToWrite), the body unless HEAD. */
  abstract reply(status: number, headers: Record<string, string | number>, body: Buffer): void;
  /** The request and response, the CORS headers set on the response: how every answer but `reply`'s is written. */
  abstract exchange(): RequestAndResponse;

  /** Decides the call's route from its target with `router` (the router's one step). */
  routeWith(router: CallRouter): void {
    this.router = router;
    this.route = router.routeOf(this.head.url ?? "/");
  }
  /** The saved query the route names, or why none: looked up on first read, from the table that decided the route. */
  get target(): RouteTarget {
    return (this.foundTarget ??= this.router?.targetOf(this.route, this.head.url ?? "/") ?? "no-endpoint");
  }
  /** The client the call comes from: the peer, or the client a trusted proxy names; read on first use. */
  get clientAddress(): string {
    return (this.foundClient ??= this.router?.clientOf(this, this.peerAddress) ?? this.peerAddress);
  }
  /** The saved query the route names; undefined when it names none. */
  get endpoint(): Endpoint | undefined {
    const target = this.target;
    return typeof target === "object" ? target : undefined;
  }
  /** The caller's `x-request-id` when sane, else a new one; read on first use. */
  get requestId(): string {
    return (this.id ??= requestIdFrom(this));
  }
  get(name: string): string | null {
    return headerValue(this.head.headers, name);
  }
}

/** A step of the request path. */
export type CallHandler = (call: Call) => void;

/** A call that came as a Node request and response (HTTP/1.1, or HTTP/2 through Node's compatibility layer). */
export class RequestCall extends Call {
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
  get peerAddress(): string {
    return this.request.socket?.remoteAddress ?? "";
  }
  corsHeadersToWrite(): Record<string, string> {
    return this.corsHeadersSet ? {} : copyCorsHeaders(this.cors.headers);
  }
  reply(status: number, headers: Record<string, string | number>, body: Buffer): void {
    replyOn([this.request, this.response], status, headers, body);
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
export class StreamCall extends Call {
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
    this.head = { method: headers[":method"], url: headers[":path"], headers, httpVersionMajor: 2 };
  }

  get body(): Readable {
    return this.stream;
  }
  get peerAddress(): string {
    const session = this.stream.session;
    return session === undefined ? "" : sessionAddress(session);
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
      setCorsHeaders(this.made[1], this.cors.headers);
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

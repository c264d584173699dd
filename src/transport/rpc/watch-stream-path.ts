// Watch streams of gRPC and gRPC-Web callers served on their bare HTTP/2
// stream, without the Connect router: after the gate, the request is read
// and prepared as the router would, then each result's envelope (made once
// per form and kept with the result, message-encodings.ts) is written as it
// is, the first result's validators and statistics going as headers, and the
// status as trailers at the end. An idle stream holds its Http2Stream, one
// BareWatch and its hub subscription. Anything else (Connect streaming, a
// request it does not read as the router would, a refusal) goes to the router.
import type { ServerHttp2Stream } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Compression } from "@connectrpc/connect/protocol";
import { parseTimeout } from "@connectrpc/connect/protocol-grpc";
import { presentedSecret } from "../../auth/index.js";
import type { Endpoint, EndpointRegistry, EndpointResult, EndpointService, WatchHub } from "../../endpoints/index.js";
import type { WatchListener, WatchStream } from "../../endpoints/index.js";
import { type Call, codeName, type EndWatchCall, pathOf, type WatchRevocation } from "../node-http/index.js";
import { frame, trailerFlag } from "./envelope-frame.js";
import { canCompress, type MessageEncodings } from "./message-encodings.js";
import { bodyBytes, type ReadBody, readBody } from "./request-body.js";
import { percentEncoded } from "./rpc-error-response.js";
import { firstHeadersOf } from "./watch-first-headers.js";
import { messageOfBody, type UnaryRequestForm, unaryRequestForm } from "./unary-request.js";

export interface WatchStreamPathOptions {
  registry: EndpointRegistry;
  service: EndpointService;
  hub: WatchHub;
  revocation: WatchRevocation;
  endCall: EndWatchCall;
  encodings: MessageEncodings;
  /** The router's compressions, in its order. */
  accepted: readonly Compression[];
  maxBodyBytes: number;
  /** The client address the watch bounds count. */
  clientOf(call: Call): string;
  /** Hands a call to the router, with what was read of its body replayed. */
  toRouter(call: Call, read?: ReadBody): void;
}

/** Takes a watch call it serves on its bare stream (true), or leaves it (false). */
export type WatchStreamPath = (call: Call) => boolean;

const timedOut = () => new ConnectError("the operation timed out", Code.DeadlineExceeded);

export function createWatchStreamPath(options: WatchStreamPathOptions): WatchStreamPath {
  const { service, hub, encodings, accepted, maxBodyBytes } = options;
  const procedures = new Map<string, Endpoint>();
  for (const e of options.registry.endpoints) if (e.grpcWatchMethod) procedures.set(`/${e.grpcWatchMethod}`, e);

  /** Opens the stream: false when the router must answer the call (its request, or a refusal). */
  function open(call: Call, stream: ServerHttp2Stream, endpoint: Endpoint, form: UnaryRequestForm, bytes: Buffer) {
    const credential = call.credential!;
    const timeout = parseTimeout(call.get("grpc-timeout"), Number.MAX_SAFE_INTEGER);
    if (timeout.error !== undefined) return false;
    let watch: BareWatch;
    try {
      const request = encodings.parse(endpoint.watchMethod!, form.binary, bytes);
      const prepared = service.prepare(endpoint, request, credential);
      watch = new BareWatch(stream, endpoint, form, call, options);
      const context = {
        tenant: credential.id,
        requestId: call.requestId,
        address: options.clientOf(call) || undefined,
      };
      watch.handle = hub.watch(prepared, context, watch);
    } catch {
      return false; // the router prepares and opens it again, and answers its error
    }
    watch.follow(presentedSecret(call), timeout.timeoutMs);
    return true;
  }

  return (call) => {
    const stream = call.stream;
    if (stream === undefined || call.credential === undefined) return false;
    const endpoint = procedures.get(pathOf(call.head.url ?? "/"));
    if (endpoint?.watchMethod === undefined) return false;
    const form = unaryRequestForm(call.head, endpoint.watchMethod, accepted);
    if (form === undefined || form.protocol === "connect" || !canCompress(form.compression)) return false;
    // The body's listeners stay on the stream for its life: what they hold of the call is let go once it is read.
    let held: Call | undefined = call;
    readBody(call.body, maxBodyBytes + 5, (read) => {
      const taken = held!;
      held = undefined;
      const bytes = read.whole ? messageOfBody(form, bodyBytes(read), maxBodyBytes) : undefined;
      if (bytes === undefined || !open(taken, stream, endpoint, form, bytes)) options.toRouter(taken, read);
      else read.chunks.length = 0;
    });
    return true;
  };
}

/** One stream: the hub's listener, writing each result's envelope on the stream. */
class BareWatch implements WatchListener {
  handle: WatchStream | undefined;
  private first: EndpointResult | undefined;
  private bytes = 0;
  private done = false;
  private timer: NodeJS.Timeout | undefined;
  private unfollow: (() => void) | undefined;
  private readonly started = performance.now();
  private readonly requestId: string;
  private readonly credential: Call["credential"];
  private cors: Record<string, string> | undefined;

  constructor(
    private readonly stream: ServerHttp2Stream,
    private readonly endpoint: Endpoint,
    private readonly form: UnaryRequestForm,
    call: Call,
    private readonly options: WatchStreamPathOptions,
  ) {
    this.requestId = call.requestId;
    this.credential = call.credential;
    this.cors = call.corsHeadersToWrite();
  }

  /** Follows the stream once the hub took it: its drains, its client leaving, its deadline, its key's revocation. */
  follow(secret: string | undefined, timeoutMs: number | undefined) {
    const stream = this.stream;
    if (stream.destroyed || stream.closed) return this.finish(undefined);
    stream.on("drain", () => this.handle?.drained());
    // The client went away (or the stream was reset): a cancelled stream ends normally.
    stream.once("close", () => this.finish(undefined));
    if (timeoutMs !== undefined) this.timer = setTimeout(() => this.stop(timedOut()), timeoutMs);
    const revoked = this.options.revocation.follow(secret);
    const signal = revoked.signal;
    if (signal === undefined) return;
    const abort = () => this.stop(ConnectError.from(signal.reason));
    signal.addEventListener("abort", abort);
    this.unfollow = () => {
      signal.removeEventListener("abort", abort);
      revoked.stop();
    };
  }

  next(result: EndpointResult): boolean {
    const stream = this.stream;
    if (this.done || stream.destroyed) return true;
    if (this.first === undefined) {
      this.first = result;
      stream.respond(this.headers(result), { waitForTrailers: this.form.protocol === "grpc" });
    }
    const { bytes } = this.options.encodings.encoded(result, this.endpoint.watchMethod!, this.form);
    this.bytes += bytes.length;
    return stream.write(bytes);
  }

  end(error: ConnectError): void {
    this.finish(error);
  }

  /** Ends the stream from this side: the hub stops feeding it. */
  private stop(error: ConnectError) {
    this.handle?.close();
    this.finish(error);
  }

  private finish(error: ConnectError | undefined) {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.unfollow?.();
    const stream = this.stream;
    if (error === undefined) this.handle?.close();
    else if (!stream.destroyed && !stream.closed) this.writeStatus(error);
    const code = error === undefined || error.code === Code.Canceled ? "ok" : codeName(error.code);
    const { requestId, credential, started } = this;
    this.options.endCall(
      { requestId, credential, started },
      {
        endpoint: this.endpoint.definition.name,
        protocol: this.form.protocol,
        code,
        first: this.first,
        responseBytes: this.bytes,
      },
    );
  }

  /** The status after the messages: trailers-only before any, else gRPC trailers or gRPC-Web's trailer frame. */
  private writeStatus(error: ConnectError) {
    const stream = this.stream;
    const status = { "grpc-status": String(error.code), "grpc-message": percentEncoded(error.rawMessage) };
    if (this.first === undefined) {
      const headers = { ...this.cors, ":status": 200, "content-type": contentTypeOf(this.form), ...status };
      stream.respond({ ...headers, "x-request-id": this.requestId }, { endStream: true });
    } else if (this.form.protocol === "grpc") {
      stream.once("wantTrailers", () => stream.sendTrailers(status));
      stream.end();
    } else {
      const lines = `grpc-status: ${status["grpc-status"]}\r\ngrpc-message: ${status["grpc-message"]}\r\n`;
      stream.end(frame(trailerFlag, Buffer.from(lines)));
    }
  }

  /** The response headers, with the first result's validators and statistics, sorted by name as connect-node sends them. */
  private headers(result: EndpointResult): Record<string, string | number> {
    const headers: Record<string, string | number> = this.cors ?? {};
    this.cors = undefined;
    headers[":status"] = 200;
    Object.assign(headers, firstHeadersOf(result, this.form));
    headers["x-request-id"] = this.requestId;
    return headers;
  }
}

export function contentTypeOf(form: UnaryRequestForm): string {
  return `application/${form.protocol}+${form.binary ? "proto" : "json"}`;
}

// The writing side of a watch stream served on its bare HTTP/2 stream: the
// hub's listener, which writes each result's envelope (made once per form and
// kept with the result) as it is, the first result's validators and
// statistics going as headers and the status at the end (gRPC trailers, or
// gRPC-Web's trailer frame), and ends the stream at its deadline, when its
// key is revoked, or when the client leaves, recording it as one call.
import type { ServerHttp2Stream } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Endpoint, EndpointResult, WatchListener, WatchStream } from "../../endpoints/index.js";
import { type Call, codeName, type EndWatchCall, type WatchRevocation } from "../node-http/index.js";
import { frame, trailerFlag } from "./envelope-frame.js";
import type { MessageEncodings } from "./message-encodings.js";
import { percentEncoded } from "./rpc-error-response.js";
import type { UnaryRequestForm } from "./unary-request.js";
import { firstHeadersOf } from "./watch-first-headers.js";

export interface BareWatchOptions {
  revocation: WatchRevocation;
  endCall: EndWatchCall;
  encodings: MessageEncodings;
}

const timedOut = () => new ConnectError("the operation timed out", Code.DeadlineExceeded);

// Watches with a message queued, written together once the turn that offered them is over, so that what made a
// refresh (an import's answer) does not wait for every watcher's write.
let toWrite: BareWatch[] = [];

function writeSoon(watch: BareWatch): void {
  if (toWrite.push(watch) === 1) setImmediate(writeAll);
}

function writeAll(): void {
  const watches = toWrite;
  toWrite = [];
  for (const watch of watches) watch.flush();
}

/** One stream: the hub's listener, writing each result's envelope on the stream. */
export class BareWatch implements WatchListener {
  handle: WatchStream | undefined;
  private first: EndpointResult | undefined;
  /** The message to write at the next flush. */
  private queued: EndpointResult | undefined;
  private bytes = 0;
  private done = false;
  private timer: NodeJS.Timeout | undefined;
  private unfollow: (() => void) | undefined;
  private readonly started = performance.now();
  private readonly requestId: string;
  private readonly credential: Call["credential"];
  private cors: Record<string, string> | undefined;

  private readonly stream: ServerHttp2Stream;

  /** A watch of `call`, which came on a bare HTTP/2 stream, of `endpoint` in `form`. */
  constructor(
    call: Call,
    private readonly endpoint: Endpoint,
    private readonly form: UnaryRequestForm,
    private readonly options: BareWatchOptions,
  ) {
    this.stream = call.stream!;
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
    if (this.done || this.stream.destroyed) return true;
    if (this.queued === undefined) writeSoon(this);
    this.queued = result;
    // Full until written: the hub holds (and conflates) what comes meanwhile.
    return false;
  }

  /** Writes the queued message, then takes the next one unless the stream is full. */
  flush(): void {
    if (this.done) return;
    if (this.writeQueued()) this.handle?.drained();
  }

  /** Writes the queued message, if any: false when the stream is full. */
  private writeQueued(): boolean {
    const result = this.queued;
    const stream = this.stream;
    if (result === undefined || stream.destroyed) return true;
    this.queued = undefined;
    if (this.first === undefined) {
      this.first = result;
      stream.respond(this.headers(result), { waitForTrailers: this.form.protocol === "grpc" });
      forgetSentHeaders(stream);
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
    else if (!stream.destroyed && !stream.closed) {
      // The message offered last goes before the status.
      this.writeQueued();
      this.writeStatus(error);
    }
    this.queued = undefined;
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
    // The error's metadata, as the router's interceptor sets it, goes with the status.
    const status = {
      "grpc-status": String(error.code),
      "grpc-message": percentEncoded(error.rawMessage),
      "x-request-id": this.requestId,
    };
    if (this.first === undefined) {
      const headers = { ...this.cors, ":status": 200, "content-type": contentTypeOf(this.form), ...status };
      stream.respond(headers, { endStream: true });
    } else if (this.form.protocol === "grpc") {
      stream.once("wantTrailers", () => stream.sendTrailers(status));
      stream.end();
    } else {
      let lines = "";
      for (const [name, value] of Object.entries(status)) lines += `${name}: ${value}\r\n`;
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

/** Node's own symbol of a stream's sent headers (read only by `stream.sentHeaders`), found on the first stream. */
let sentHeadersKey: symbol | undefined;

/** Lets go of Node's copy of the response headers, which an idle stream would keep for its life; nothing here reads it. */
function forgetSentHeaders(stream: ServerHttp2Stream): void {
  sentHeadersKey ??= Object.getOwnPropertySymbols(stream).find((s) => s.description === "sent-headers");
  if (sentHeadersKey !== undefined) (stream as unknown as Record<symbol, unknown>)[sentHeadersKey] = undefined;
}

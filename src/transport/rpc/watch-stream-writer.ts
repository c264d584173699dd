// A gRPC or gRPC-Web watch stream's bytes on its bare HTTP/2 stream: envelopes written after the turn that offered
// them, the first result's headers, the status at the end (protocol-grpc.ts).
import type { ServerHttp2Stream } from "node:http2";
import type { ConnectError } from "@connectrpc/connect";
import type { DescMethod } from "@bufbuild/protobuf";
import type { EndpointResult } from "../../endpoints/index.js";
import type { WatchSession, WatchWriter } from "../call/index.js";
import type { MessageEncodings } from "./message-encodings.js";
import { grpcStatusFields } from "./protocol-grpc.js";
import { grpcWebTrailerFrame } from "./protocol-grpc-web.js";
import { firstResultFields } from "./rpc-cache-headers.js";
import type { UnaryRequestForm } from "./unary-request.js";

// Writers with a message queued, written together once the turn that offered them is over, so that what made a
// refresh (an import's answer) does not wait for every watcher's write.
let toWrite: BareWatchWriter[] = [];

function writeSoon(writer: BareWatchWriter): void {
  if (toWrite.push(writer) === 1) setImmediate(writeAll);
}

function writeAll(): void {
  const writers = toWrite;
  toWrite = [];
  for (const writer of writers) writer.flush();
}

/** One bare stream's writer. */
export class BareWatchWriter implements WatchWriter {
  /** Its session, once opened: told when the stream drains. */
  session: WatchSession | undefined;
  /** The stream's deadline (grpc-timeout), cleared at its end. */
  deadline: NodeJS.Timeout | undefined;
  private queued: EndpointResult | undefined;
  private started = false;
  private written = 0;
  private cors: Record<string, string> | undefined;
  private readonly encodings: MessageEncodings;
  private readonly requestId: string;

  constructor(
    private readonly stream: ServerHttp2Stream,
    private readonly form: UnaryRequestForm,
    private readonly method: DescMethod,
    context: { encodings: MessageEncodings; requestId: string; cors: Record<string, string> },
  ) {
    // Kept one by one: the CORS headers are let go once written.
    this.cors = context.cors;
    this.encodings = context.encodings;
    this.requestId = context.requestId;
    stream.on("drain", () => this.session?.drained());
  }

  result(result: EndpointResult): boolean {
    if (this.stream.destroyed) return true;
    if (this.queued === undefined) writeSoon(this);
    this.queued = result;
    // Full until written: the hub holds (and conflates) what comes meanwhile.
    return false;
  }

  /** Writes the queued message, then takes the next one unless the stream is full. */
  flush(): void {
    if (this.writeQueued()) this.session?.drained();
  }

  end(error: ConnectError | undefined): void {
    clearTimeout(this.deadline);
    const stream = this.stream;
    if (error === undefined || stream.destroyed || stream.closed) return;
    // The message offered last goes before the status, which carries the error's metadata as the router's would.
    this.writeQueued();
    error.metadata.set("x-request-id", this.requestId);
    const status = grpcStatusFields(error);
    if (!this.started) {
      stream.respond(
        { ...this.cors, ":status": 200, "content-type": contentTypeOf(this.form), ...status },
        { endStream: true },
      );
    } else if (this.form.protocol === "grpc") {
      stream.once("wantTrailers", () => stream.sendTrailers(status));
      stream.end();
    } else {
      stream.end(grpcWebTrailerFrame(status));
    }
  }

  bytes(): number {
    return this.written;
  }

  /** Writes the queued message, if any: false when the stream is full. */
  private writeQueued(): boolean {
    const result = this.queued;
    const stream = this.stream;
    if (result === undefined || stream.destroyed || stream.closed) return true;
    this.queued = undefined;
    if (!this.started) {
      this.started = true;
      stream.respond(this.headers(result), { waitForTrailers: this.form.protocol === "grpc" });
      forgetSentHeaders(stream);
    }
    const { bytes } = this.encodings.encoded(result, this.method, this.form);
    this.written += bytes.length;
    return stream.write(bytes);
  }

  /** The response headers, CORS first, then the first result's, sorted by name as connect-node sends them. */
  private headers(result: EndpointResult): Record<string, string | number> {
    const headers: Record<string, string | number> = this.cors ?? {};
    this.cors = undefined;
    headers[":status"] = 200;
    const {
      "cache-status": cacheStatus,
      etag,
      "last-modified": lastModified,
      ...statistics
    } = firstResultFields(result, this.form.binary);
    headers["cache-status"] = cacheStatus!;
    headers["content-type"] = contentTypeOf(this.form);
    headers.etag = etag!;
    if (this.form.compression !== null) headers["grpc-encoding"] = this.form.compression.name;
    headers["last-modified"] = lastModified!;
    Object.assign(headers, statistics);
    headers["x-request-id"] = this.requestId;
    return headers;
  }
}

function contentTypeOf(form: UnaryRequestForm): string {
  return `application/${form.protocol}+${form.binary ? "proto" : "json"}`;
}

/** Node's own symbol of a stream's sent headers (read only by `stream.sentHeaders`), found on the first stream. */
let sentHeadersKey: symbol | undefined;

/** Lets go of Node's copy of the response headers, which an idle stream would keep for its life; nothing here reads it. */
function forgetSentHeaders(stream: ServerHttp2Stream): void {
  sentHeadersKey ??= Object.getOwnPropertySymbols(stream).find((s) => s.description === "sent-headers");
  if (sentHeadersKey !== undefined) (stream as unknown as Record<symbol, unknown>)[sentHeadersKey] = undefined;
}

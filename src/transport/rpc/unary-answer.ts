// A successful unary answer written as connect-node writes it (the same headers in the same sorted order, content
// types, compression and gRPC status), on HTTP/2 straight on the stream.
import type { Compression } from "./connect-internals.js";
import type { EncodedMessage } from "./message-encodings.js";
import type { UnaryRequestForm } from "./unary-request.js";
import type { Call, CacheHeaders } from "../call/index.js";
import { grpcStatusFields } from "./protocol-grpc.js";
import { grpcWebTrailerFrame } from "./protocol-grpc-web.js";
import type { StatisticsFields } from "./rpc-cache-headers.js";

const grpcOk = grpcStatusFields(undefined);
// Made once per statistics: every hit of a cached result ends with the same gRPC-Web frame.
const framesByFields = new WeakMap<StatisticsFields, Buffer>();

/** gRPC's trailers of a success carrying `fields`. */
function grpcOkTrailersWith(fields: StatisticsFields): Record<string, string> {
  return { ...grpcOk, ...fields };
}

/** gRPC-Web's trailer frame of a success carrying `fields`. */
function grpcWebOkTrailerWith(fields: StatisticsFields): Buffer {
  let trailer = framesByFields.get(fields);
  if (trailer === undefined) {
    const frame = grpcWebTrailerFrame(grpcOkTrailersWith(fields));
    trailer = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
    framesByFields.set(fields, trailer);
  }
  return trailer;
}

/** The headers a saved query's answer carries besides the protocol's own. */
export interface CallHeaders {
  /** The validators and cache headers (cache-validators.ts), with Vary. */
  cache: CacheHeaders & { vary: string };
  "x-request-id": string;
  /** The warehouse statistics of the result: headers on Connect, trailers on gRPC and gRPC-Web. */
  statistics: StatisticsFields;
}

/** The part of Node's HTTP/1.1 and HTTP/2 compatibility responses the answer uses. */
interface WritableResponse {
  writeHead(status: number, headers: Record<string, string | number>): unknown;
  write(chunk: Buffer): unknown;
  addTrailers(trailers: Record<string, string>): unknown;
  end(chunk?: Buffer): unknown;
}

/**
 * Answers 200 with `message` as connect-node answers the same call, the CORS headers first: on the call's bare HTTP/2
 * stream, else through its Node response (whose HTTP/2 layer keeps the stream's trailers to itself).
 */
export function writeUnaryAnswer(call: Call, form: UnaryRequestForm, message: EncodedMessage, extra: CallHeaders) {
  const stream = call.stream;
  if (stream !== undefined) {
    // A caller that reset its stream meanwhile is answered nothing: writing to it would throw.
    if (stream.destroyed || stream.closed) return;
    // The CORS headers come first, as a response's set headers do.
    const fields = addAnswerHeaders(call.corsHeadersToWrite(), form, message, extra);
    fields[":status"] = 200;
    if (form.protocol === "grpc") {
      stream.respond(fields, { waitForTrailers: true });
      stream.once("wantTrailers", () => stream.sendTrailers(grpcOkTrailersWith(extra.statistics)));
      stream.end(message.bytes);
    } else if (form.protocol === "grpc-web") {
      stream.respond(fields);
      stream.write(message.bytes);
      stream.end(grpcWebOkTrailerWith(extra.statistics));
    } else {
      stream.respond(fields);
      stream.end(message.bytes);
    }
    return;
  }
  const response = call.response as unknown as WritableResponse;
  response.writeHead(200, addAnswerHeaders(call.corsHeadersToWrite(), form, message, extra));
  if (form.protocol === "grpc-web") {
    // Two writes without a length, as connect-node writes the message and the trailer frame.
    response.write(message.bytes);
    response.end(grpcWebOkTrailerWith(extra.statistics));
  } else if (form.protocol === "grpc") {
    response.write(message.bytes);
    response.addTrailers(grpcOkTrailersWith(extra.statistics));
    response.end();
  } else {
    response.end(message.bytes);
  }
}

/** Adds the response headers of the answer to `headers`, in the order connect-node writes them (sorted by name). */
function addAnswerHeaders(
  headers: Record<string, string | number>,
  form: UnaryRequestForm,
  message: EncodedMessage,
  extra: CallHeaders,
): Record<string, string | number> {
  const cache = extra.cache;
  if (cache.age !== undefined) headers.age = cache.age;
  headers["cache-control"] = cache["cache-control"];
  headers["cache-status"] = cache["cache-status"];
  const connect = form.protocol === "connect";
  if (connect) {
    if (message.compressed) headers["content-encoding"] = (form.compression as Compression).name;
    headers["content-length"] = String(message.bytes.length);
    headers["content-type"] = form.binary ? "application/proto" : "application/json";
    headers.etag = cache.etag;
  } else {
    headers["content-type"] = `application/${form.protocol}+${form.binary ? "proto" : "json"}`;
    headers.etag = cache.etag;
    // gRPC names the negotiated compression whether or not this message was long enough to be compressed.
    if (form.compression !== null) headers["grpc-encoding"] = form.compression.name;
  }
  headers["last-modified"] = cache["last-modified"];
  // Connect answers statistics as headers (gRPC and gRPC-Web as trailers), sorted by name among the others.
  const statistics = connect ? extra.statistics : undefined;
  if (statistics !== undefined) headers["server-timing"] = statistics["server-timing"]!;
  headers.vary = cache.vary;
  const bytesRead = statistics?.["x-bytes-read"];
  if (bytesRead !== undefined) headers["x-bytes-read"] = bytesRead;
  if (cache["x-cache"] !== undefined) headers["x-cache"] = cache["x-cache"];
  headers["x-request-id"] = extra["x-request-id"];
  const rowsRead = statistics?.["x-rows-read"];
  if (rowsRead !== undefined) headers["x-rows-read"] = rowsRead;
  return headers;
}

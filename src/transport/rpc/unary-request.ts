// What a plain unary Connect, gRPC or gRPC-Web call asks (protocol, encoding, compression, message), read as
// connect-node reads it; anything it does not read exactly so is the router's.
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import type { DescMethod } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { type Compression, compressionNegotiate, parseConnectTimeout, parseTimeout } from "./connect-internals.js";
import { createBoundedMemo } from "../../collections/index.js";
import { queryOf, type RequestHead } from "../call/index.js";
import { type CallProtocol, rpcContentTypeOf } from "./rpc-protocol.js";

/** A plain unary call, as far as its headers tell. */
export interface UnaryRequestForm {
  protocol: CallProtocol;
  /** Protobuf binary, else JSON. */
  binary: boolean;
  /** Connect's GET form: the message is in the query string, there is no body. */
  get: boolean;
  /** The response compression connect-node would choose; null for none. */
  compression: Compression | null;
}

/** Distinct accepted encodings whose reading is kept (collections/bounded-memo.ts): a lookup costs less than a parse. */
const memoSize = 64;

/**
 * The form of `request`, a call of `method`, if it is a plain unary call the fast path reads exactly as connect-node
 * does; undefined for anything else. `available`: the router's compressions, in its order.
 */
export function unaryRequestForm(
  request: RequestHead,
  method: DescMethod,
  available: readonly Compression[],
): UnaryRequestForm | undefined {
  const form = plainForm(request, method);
  if (form === undefined) return undefined;
  const compression = negotiate(
    available,
    request.headers[form.protocol === "connect" ? "accept-encoding" : "grpc-accept-encoding"],
  );
  if (compression === undefined) return undefined;
  form.compression = compression;
  return form;
}

/** The form of a request without compression or a malformed deadline, its compression not yet negotiated. */
function plainForm(request: RequestHead, method: DescMethod): UnaryRequestForm | undefined {
  const headers = request.headers;
  if (request.method === "GET") {
    // A Connect GET (`?message=…&encoding=…`) of a method without side effects, with no content type.
    if (method.idempotency !== MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS) return undefined;
    if (headers["content-type"] !== undefined || !timeoutIs(headers["connect-timeout-ms"], parseConnectTimeout))
      return undefined;
    const query = queryParams(request.url);
    const encoding = query.get("encoding");
    if (encoding !== "proto" && encoding !== "json") return undefined;
    if (!identity(query.get("compression") ?? undefined)) return undefined;
    return { protocol: "connect", binary: encoding === "proto", get: true, compression: null };
  }
  const contentType = headers["content-type"];
  if (request.method !== "POST" || typeof contentType !== "string") return undefined;
  const type = rpcContentTypeOf(contentType);
  if (type === undefined || type.text || type.stream) return undefined;
  if (type.protocol === "connect") {
    if (!identity(headers["content-encoding"]) || !timeoutIs(headers["connect-timeout-ms"], parseConnectTimeout))
      return undefined;
  } else {
    // gRPC's trailers need HTTP/2; a gRPC call over HTTP/1.1 is the router's to answer.
    if (type.protocol === "grpc" && request.httpVersionMajor !== 2) return undefined;
    if (!identity(headers["grpc-encoding"]) || !timeoutIs(headers["grpc-timeout"], parseTimeout)) return undefined;
  }
  return { protocol: type.protocol, binary: type.binary, get: false, compression: null };
}

/**
 * The message bytes of a whole request body in `form`: a Connect body as it is, a gRPC or gRPC-Web body when it is
 * exactly one uncompressed envelope. Undefined when it is anything else, or longer than `maxBytes`.
 */
export function messageOfBody(form: UnaryRequestForm, body: Buffer, maxBytes: number): Buffer | undefined {
  if (form.protocol === "connect") return body.length > maxBytes ? undefined : body;
  if (body.length < 5 || body[0] !== 0) return undefined;
  const length = body.readUInt32BE(1);
  return length !== body.length - 5 || length > maxBytes ? undefined : body.subarray(5);
}

/** The message bytes of a Connect GET, as connect-node reads `message` and `base64`; undefined when malformed. */
export function messageOfQuery(url: string | undefined, maxBytes: number): Buffer | undefined {
  const query = queryParams(url);
  const message = query.get("message") ?? "";
  let bytes: Buffer;
  if (query.get("base64") === "1") {
    // The decoder connect-node uses; what it refuses is the router's to answer.
    try {
      const decoded = base64Decode(message);
      bytes = Buffer.from(decoded.buffer, decoded.byteOffset, decoded.byteLength);
    } catch {
      return undefined;
    }
  } else {
    bytes = Buffer.from(message, "utf8");
  }
  return bytes.length > maxBytes ? undefined : bytes;
}

function queryParams(url: string | undefined): URLSearchParams {
  return new URLSearchParams(queryOf(url));
}

function identity(value: string | string[] | undefined): boolean {
  return value === undefined || value === "identity";
}

/** No deadline, or one the protocol's own parser reads without an error. */
function timeoutIs(
  value: string | string[] | undefined,
  parse: (value: string, maxTimeoutMs: number) => { error?: unknown },
): boolean {
  return (
    value === undefined || (typeof value === "string" && parse(value, Number.MAX_SAFE_INTEGER).error === undefined)
  );
}

/** Each list of compressions' negotiation of an accepted-encodings value, remembered by value. */
const negotiations = new WeakMap<readonly Compression[], (accept: string) => Compression | null>();

/**
 * The response compression for an accepted-encodings header (`accept-encoding`, `grpc-accept-encoding`), as
 * connect-node negotiates it; undefined for a repeated header.
 */
function negotiate(
  available: readonly Compression[],
  accept: string | string[] | undefined,
): Compression | null | undefined {
  if (Array.isArray(accept)) return undefined;
  if (accept === undefined) return null;
  let byValue = negotiations.get(available);
  if (byValue === undefined) {
    // compressionNegotiate only reads the list (its type asks for a mutable one), and names the header only in errors.
    const negotiated = (value: string) =>
      compressionNegotiate(available as Compression[], null, value, "accept-encoding").response;
    negotiations.set(available, (byValue = createBoundedMemo(negotiated, memoSize)));
  }
  return byValue(accept);
}

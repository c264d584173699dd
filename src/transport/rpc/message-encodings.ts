// A cached result's response message in each form RPC callers read (binary or JSON, compressed or not, bare or
// enveloped), made once with connect-node's own serialisation and kept with the result for every later hit.
import * as zlib from "node:zlib";
import type { DescMethod, Message } from "@bufbuild/protobuf";
import type { JsonReadOptions, JsonWriteOptions } from "@bufbuild/protobuf";
import {
  type Compression,
  compressedFlag,
  createMethodSerializationLookup,
  encodeEnvelope,
} from "./connect-internals.js";
import type { ComputedResponse } from "../../endpoints/index.js";
import type { UnaryRequestForm } from "./unary-request.js";

/** Connect-node's compressions with the same output, done synchronously: the work is done once per form. */
const compressors: Record<string, (bytes: Uint8Array) => Buffer> = {
  gzip: (bytes) => zlib.gzipSync(bytes, {}),
  br: (bytes) => zlib.brotliCompressSync(bytes, {}),
};

/** Whether the fast path can write bodies compressed with `compression` (gzip and br; none needs nothing). */
export function canCompress(compression: Compression | null): boolean {
  return compression === null || compressors[compression.name] !== undefined;
}

/** A form of the message: its bytes, and whether they are compressed (a message shorter than the minimum is not). */
export interface EncodedMessage {
  bytes: Buffer;
  compressed: boolean;
}

export interface MessageEncodings {
  /**
   * `result`'s message for a call of `method` in `form`, compressed as negotiated, bare for Connect or as one gRPC
   * envelope. Throws INTERNAL, as the router would, when the result's rows do not fit the message.
   */
  encoded(result: ComputedResponse, method: DescMethod, form: UnaryRequestForm): EncodedMessage;
  /** The request message of `method` from its bytes, parsed as the router parses it; throws what it throws. */
  parse(method: DescMethod, binary: boolean, bytes: Uint8Array): Message;
}

/** Messages shorter than this are sent uncompressed whatever the caller accepts: connect-node's minimum. */
const compressMinBytes = 1024;

/** The encodings with the router's JSON options, so that JSON bodies are written as it writes them. */
export function createMessageEncodings(
  options: { jsonOptions?: Partial<JsonReadOptions & JsonWriteOptions> } = {},
): MessageEncodings {
  const limits = { readMaxBytes: 0xffffffff, writeMaxBytes: 0xffffffff, compressMinBytes };
  const serializations = new Map<DescMethod, ReturnType<typeof createMethodSerializationLookup>>();
  const serializationOf = (method: DescMethod) => {
    let lookup = serializations.get(method);
    if (lookup === undefined) {
      lookup = createMethodSerializationLookup(method, undefined, options.jsonOptions, limits);
      serializations.set(method, lookup);
    }
    return lookup;
  };

  /** The message bare, as the router serialises it; kept, as every compressed form is made from it. */
  function plain(result: ComputedResponse, method: DescMethod, binary: boolean): Buffer {
    const name = binary ? "message" : "message-json";
    let bytes = result.body(name);
    if (bytes === undefined) {
      const made = serializationOf(method).getO(binary).serialize(result.message());
      bytes = Buffer.from(made.buffer, made.byteOffset, made.byteLength);
      result.keepBody(name, bytes);
    }
    return bytes;
  }

  /** The message bare, compressed when `compression` is named and the message is long enough. */
  function bare(
    result: ComputedResponse,
    method: DescMethod,
    binary: boolean,
    compression: Compression | null,
  ): EncodedMessage {
    const bytes = plain(result, method, binary);
    if (compression === null || bytes.length < compressMinBytes) return { bytes, compressed: false };
    const name = `${binary ? "message" : "message-json"}+${compression.name}`;
    let compressed = result.body(name);
    if (compressed === undefined) {
      compressed = compressors[compression.name]!(bytes);
      result.keepBody(name, compressed);
    }
    return { bytes: compressed, compressed: true };
  }

  return {
    encoded(result, method, { binary, compression, protocol }) {
      const body = bare(result, method, binary, compression);
      if (protocol === "connect") return body;
      const format = binary ? "envelope" : "envelope-json";
      const name = body.compressed ? `${format}+${compression!.name}` : format;
      let envelope = result.body(name);
      if (envelope === undefined) {
        const framed = encodeEnvelope(body.compressed ? compressedFlag : 0, body.bytes);
        envelope = Buffer.from(framed.buffer, framed.byteOffset, framed.byteLength);
        result.keepBody(name, envelope);
      }
      return { bytes: envelope, compressed: body.compressed };
    },
    parse: (method, binary, bytes) => serializationOf(method).getI(binary).parse(bytes),
  };
}

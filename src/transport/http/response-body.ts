// The body a GET caller reads, in its format and content coding: the JSON
// body as the result has it, or one made from it once and kept with the
// result by name (a cached result counts it in the cache's bound), so a later
// caller asking for the same one reads it as is. Compression (gzip, Brotli,
// zstd where this Node has it) is synchronous and done once per kept body.
import * as zlib from "node:zlib";
import type { ComputedResponse, Endpoint } from "../../endpoints/index.js";
import { bodyFormats } from "./body-formats.js";
import {
  encodings,
  formats,
  IDENTITY,
  JSON_FORMAT,
  type BodyFormat,
  type ContentEncoding,
} from "./content-negotiation.js";

export interface ResponseBodies {
  /** The body if no work is needed to have it: the JSON body, or one already kept. */
  ready(result: ComputedResponse, format: BodyFormat, encoding: ContentEncoding): Buffer | undefined;
  /** The body, made (and kept) if it was not yet. */
  make(result: ComputedResponse, endpoint: Endpoint, format: BodyFormat, encoding: ContentEncoding): Buffer;
}

/** Compresses `body` for `encoding` (1 gzip, 2 zstd, 3 br; 0 returns it as is). */
export type Compressor = (body: Buffer, encoding: ContentEncoding) => Buffer;

const zstdCompressSync = (zlib as unknown as { zstdCompressSync?: (body: Buffer) => Buffer }).zstdCompressSync;

/**
 * gzip at level 6; Brotli at quality 5: most of the size gain of 11 at a
 * small part of its work, which matters for results that are not cached
 * (logs.all) and are compressed on every call.
 */
export function createCompressor(): Compressor {
  return (body, encoding) => {
    if (encoding === 1) return zlib.gzipSync(body, { level: 6 });
    if (encoding === 2) return zstdCompressSync!(body);
    if (encoding !== 3) return body;
    return zlib.brotliCompressSync(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      },
    });
  };
}

const columnsOf = new WeakMap<Endpoint, string[]>();

/** The kept body's name of each format and coding, by their numbers: "csv", "json+gzip". */
const bodyNames = formats.map((format) =>
  encodings.map((encoding) => (encoding === "identity" ? format : `${format}+${encoding}`)),
);

export function createResponseBodies(compress: Compressor): ResponseBodies {
  /** The kept body `name`, made by `make` and kept when there is none yet. */
  function kept(result: ComputedResponse, name: string, make: () => Buffer): Buffer {
    let body = result.body(name);
    if (body === undefined) result.keepBody(name, (body = make()));
    return body;
  }

  function formatted(result: ComputedResponse, endpoint: Endpoint, format: BodyFormat): Buffer {
    if (format === JSON_FORMAT) return result.json();
    return kept(result, bodyNames[format]![IDENTITY]!, () => {
      let columns = columnsOf.get(endpoint);
      if (columns === undefined) columnsOf.set(endpoint, (columns = endpoint.rowSchema.fields.map((f) => f.name)));
      return bodyFormats[format]!.fromJson!(result.json(), columns);
    });
  }

  return {
    ready(result, format, encoding) {
      if (format === JSON_FORMAT && encoding === IDENTITY) return result.json();
      return result.body(bodyNames[format]![encoding]!);
    },
    make(result, endpoint, format, encoding) {
      if (encoding === IDENTITY) return formatted(result, endpoint, format);
      return kept(result, bodyNames[format]![encoding]!, () => compress(formatted(result, endpoint, format), encoding));
    },
  };
}

// The body a GET caller reads, in its format and content coding: the JSON
// body as the result has it, or one made from it once and kept with the
// result by name (a cached result counts it in the cache's bound), so a later
// caller asking for the same one reads it as is.
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
import type { Compressor } from "./response-encoding.js";

export interface ResponseBodies {
  /** The body if no work is needed to have it: the JSON body, or one already kept. */
  ready(result: ComputedResponse, format: BodyFormat, encoding: ContentEncoding): Buffer | undefined;
  /** The body, made (and kept) if it was not yet. */
  make(result: ComputedResponse, endpoint: Endpoint, format: BodyFormat, encoding: ContentEncoding): Buffer;
}

const columnsOf = new WeakMap<Endpoint, string[]>();

/** The kept body's name of each format and coding, by their numbers: "csv", "json+gzip". */
const bodyNames = formats.map((format) =>
  encodings.map((encoding) => (encoding === "identity" ? format : `${format}+${encoding}`)),
);

export function createResponseBodies(compress: Compressor): ResponseBodies {
  function formatted(result: ComputedResponse, endpoint: Endpoint, format: BodyFormat): Buffer {
    if (format === JSON_FORMAT) return result.json();
    const name = bodyNames[format]![IDENTITY]!;
    let body = result.body(name);
    if (body === undefined) {
      let columns = columnsOf.get(endpoint);
      if (columns === undefined) columnsOf.set(endpoint, (columns = endpoint.rowSchema.fields.map((f) => f.name)));
      body = bodyFormats[format]!.fromJson!(result.json(), columns);
      result.keepBody(name, body);
    }
    return body;
  }

  return {
    ready(result, format, encoding) {
      if (format === JSON_FORMAT && encoding === IDENTITY) return result.json();
      return result.body(bodyNames[format]![encoding]!);
    },
    make(result, endpoint, format, encoding) {
      if (encoding === IDENTITY) return formatted(result, endpoint, format);
      const name = bodyNames[format]![encoding]!;
      let body = result.body(name);
      if (body === undefined) {
        body = compress(formatted(result, endpoint, format), encoding);
        result.keepBody(name, body);
      }
      return body;
    },
  };
}

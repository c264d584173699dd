// How the GET answers' formats, codings and headers appear in the OpenAPI
// document and the listing, kept beside the code that writes them.
import { formats } from "./content-negotiation.js";

/** The `format` query parameter every endpoint takes. */
export const formatParameter = {
  name: "format",
  in: "query",
  required: false,
  description:
    "Body format; when absent, Accept decides (text/csv, application/x-ndjson), else JSON. Errors are always JSON.",
  schema: { type: "string", enum: [...formats], default: "json" },
};

/** The other bodies of a 200 besides JSON: the same rows and fields. */
export const otherBodies = {
  "text/csv": {
    schema: { type: "string" },
    description:
      "RFC 4180: a header line of the field names, one line per row, CRLF line ends; metadata as its JSON text",
  },
  "application/x-ndjson": { schema: { type: "string" }, description: "One JSON row a line" },
};

/** Headers of every 200 GET answer. */
export const answerHeaders = {
  "Content-Encoding": {
    schema: { type: "string", enum: ["gzip", "br", "zstd"] },
    description: "As Accept-Encoding allows (zstd where the server's Node has it); absent for an uncompressed body",
  },
  Vary: { schema: { type: "string", const: "Accept, Accept-Encoding" } },
  "Server-Timing": {
    schema: { type: "string" },
    description:
      'cache;desc="hit"|"miss" (the lookup), warehouse (the query), serialize (writing the body), durations in milliseconds; a hit has only cache, and serialize when its body had to be made',
  },
  "X-Rows-Read": {
    schema: { type: "integer" },
    description:
      "Rows the query read, when the warehouse reports it (a ClickHouse server does, the embedded engine does not); for a hit, those of the query that computed it",
  },
  "X-Bytes-Read": { schema: { type: "integer" }, description: "Bytes the query read, as X-Rows-Read" },
};

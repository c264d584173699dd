// How the GET answers' formats, codings and headers appear in the OpenAPI
// document and the listing, kept beside the code that writes them.
import { bodyFormats } from "./body-formats.js";

const [json, ...others] = bodyFormats;

/** The `format` query parameter every endpoint takes. */
export const formatParameter = {
  name: "format",
  in: "query",
  required: false,
  description: `Body format; when absent, Accept decides (${others.map((f) => f.mediaType).join(", ")}), else JSON. Errors are always JSON.`,
  schema: { type: "string", enum: bodyFormats.map((f) => f.name), default: json!.name },
};

/** The other bodies of a 200 besides JSON, by media type: the same rows and fields. */
export const otherBodies = Object.fromEntries(
  others.map((f) => [f.mediaType, { schema: { type: "string" }, description: f.description }]),
);

/** Headers of every 200 GET answer. */
export const corsHeaders = {
  "Content-Encoding": {
    schema: { type: "string", enum: ["gzip", "br", "zstd"] },
    description: "As Accept-Encoding allows (zstd where the server's Node has it); absent for an uncompressed body",
  },
  Vary: { schema: { type: "string", const: "Accept, Accept-Encoding" } },
  "Server-Timing": {
    schema: { type: "string" },
    description:
      'cache;desc="hit"|"miss" (the lookup), warehouse (the query), serialize (writing the body), durations in milliseconds; a hit has cache, the warehouse time of the query that made it, and serialize when its body had to be made',
  },
  "X-Rows-Read": {
    schema: { type: "integer" },
    description:
      "Rows the query read, when the warehouse reports it (a ClickHouse server does, the embedded engine does not); for a hit, those of the query that computed it",
  },
  "X-Bytes-Read": { schema: { type: "integer" }, description: "Bytes the query read, as X-Rows-Read" },
};

/** The next page's token in the JSON body of a paged endpoint, present while older rows remain. */
export const nextPageToken = {
  type: "string",
  description:
    "Give it back as page_token, with the same other parameters, for the next older page; absent on the last",
};

/** Headers of a 200 GET answer of a paged endpoint, whatever its format. */
export const nextPageHeaders = {
  Link: {
    schema: { type: "string" },
    description:
      'While older rows remain: <the path and query string as sent, with page_token set to the next page\'s token>; rel="next"',
  },
};

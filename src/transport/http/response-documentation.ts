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

/** The `dry_run` query parameter every endpoint takes. */
export const dryRunParameter = {
  name: "dry_run",
  in: "query",
  required: false,
  description:
    'With 1, the query is not run: the answer is {"estimate": {"rows", "parts", "marks"}}, what the warehouse expects it to read (EXPLAIN ESTIMATE)',
  schema: { type: "string", enum: ["0", "1"], default: "0" },
};

/** The JSON body's fields besides `result` that say whether rows were left out. */
export const truncationFields = {
  truncated: { type: "boolean", description: "Whether rows were left out past max_rows, or past the page" },
  rows_before_limit_at_least: {
    type: "integer",
    description: "Rows before the cut at least, as the warehouse counts them; never fewer than the rows answered",
  },
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
  "X-Result-Truncated": { schema: { type: "string", enum: ["true", "false"] }, description: "The body's truncated" },
  "X-Rows-Before-Limit": { schema: { type: "integer" }, description: "The body's rows_before_limit_at_least" },
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

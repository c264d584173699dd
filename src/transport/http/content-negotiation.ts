// Which body a GET caller reads: the format from `format=` in the query
// string or else from `Accept`, the content coding from `Accept-Encoding`.
// Header values repeat from call to call (a client sends the same ones every
// time), so each of the first distinct values is parsed once and its answer
// remembered.
import * as zlib from "node:zlib";
import { createBoundedMemo } from "../../collections/index.js";
import { bodyFormats } from "./body-formats.js";

/** Content codings by number, the server's preference among equals last to first: br, then zstd, then gzip. */
export const encodings = ["identity", "gzip", "zstd", "br"] as const;
export type ContentEncoding = 0 | 1 | 2 | 3;
export const IDENTITY: ContentEncoding = 0;

/** Whether this Node can write zstd (zlib.zstdCompressSync). */
export const zstdAvailable = typeof (zlib as unknown as { zstdCompressSync?: unknown }).zstdCompressSync === "function";

/** A body format by its number, its position in bodyFormats (response-body.ts names kept bodies by format and coding). */
export type BodyFormat = number;
/** The formats' `format=` names, by number. */
export const formats: readonly string[] = bodyFormats.map((f) => f.name);
const numbered = (name: string): BodyFormat => formats.indexOf(name);
export const JSON_FORMAT: BodyFormat = numbered("json");
export const CSV_FORMAT: BodyFormat = numbered("csv");
export const NDJSON_FORMAT: BodyFormat = numbered("ndjson");

/** The `format` query-string value's format; undefined for a name not in bodyFormats (letter case counts). */
export function formatFromParameter(value: string): BodyFormat | undefined {
  const index = formats.indexOf(value);
  return index < 0 ? undefined : index;
}

const mediaTypes = new Map<string, BodyFormat>(
  bodyFormats.flatMap((format, number) => format.mediaRanges.map((range) => [range, number] as const)),
);

const codings: Record<string, ContentEncoding> = { gzip: 1, "x-gzip": 1, br: 3, ...(zstdAvailable ? { zstd: 2 } : {}) };

/** Distinct header values whose answers are kept (collections/bounded-memo.ts). */
const memoSize = 256;

/** `name;q=0.5` → [name lowercased, 0.5]; a missing or unreadable q is 1. */
function weighted(item: string): [string, number] {
  const parts = item.split(";");
  let q = 1;
  for (let i = 1; i < parts.length; i += 1) {
    const [key, value] = parts[i]!.split("=").map((p) => p.trim());
    if (key?.toLowerCase() === "q" && value !== undefined) {
      const n = Number(value);
      if (Number.isFinite(n) && n >= 0 && n <= 1) q = n;
    }
  }
  return [parts[0]!.trim().toLowerCase(), q];
}

/**
 * The format an `Accept` value asks for: the supported media range with the
 * highest q (the first among equals); JSON when none is supported, so a
 * browser asking for HTML or anything reads JSON.
 */
export const formatFromAccept = createBoundedMemo((accept: string): BodyFormat => {
  let best: BodyFormat = JSON_FORMAT;
  let bestQ = 0;
  for (const item of accept.split(",")) {
    const [type, q] = weighted(item);
    const format = mediaTypes.get(type);
    if (format !== undefined && q > bestQ) {
      best = format;
      bestQ = q;
    }
  }
  return best;
}, memoSize);

/**
 * The content coding an `Accept-Encoding` value allows: the highest q, br
 * before zstd before gzip among equals; `*` stands for gzip unless named;
 * identity when none is acceptable.
 */
export const encodingFromAcceptEncoding = createBoundedMemo((header: string): ContentEncoding => {
  let best: ContentEncoding = IDENTITY;
  let bestQ = 0;
  let starQ = 0;
  const named = new Set<string>();
  for (const item of header.split(",")) {
    const [name, q] = weighted(item);
    if (name === "*") {
      starQ = q;
      continue;
    }
    named.add(name);
    const coding = codings[name];
    if (coding !== undefined && q > 0 && (q > bestQ || (q === bestQ && coding > best))) {
      best = coding;
      bestQ = q;
    }
  }
  if (starQ > bestQ && !named.has("gzip") && !named.has("x-gzip")) best = 1;
  return best;
}, memoSize);

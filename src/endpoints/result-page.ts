// Paging a saved query's rows (docs/endpoints.md, Paging): the page token a
// call brings checked against its caller before the query runs, and the rows
// the SQL returns cut to one page, with a token for the next when the SQL
// returned a row past it.
import type { QueryParamValue, WarehouseRow } from "../executor/index.js";
import { invalidArgument } from "../errors/index.js";
import { type PageCursor, type PageTokens, pageParametersOf, readPageToken } from "./page-token.js";

/** The paging of one prepared call of an endpoint with a page token parameter. */
export interface PageRequest {
  /** The page token parameter's name, which errors name. */
  parameter: string;
  /** Rows per page; the SQL returns up to one more. */
  size: number;
  /** The call's other parameters, normalised (page-token.ts pageParametersOf). */
  parameters: string;
  /** The token the call brought; undefined for the newest page. */
  token?: string;
}

/** A page: the rows to answer with and the token of the next page, when older rows remain. */
export interface ResultPage {
  rows: WarehouseRow[];
  nextPageToken?: string;
}

/**
 * The paging of `parameter` (a page token over pages of `size` rows), the
 * cursor placeholders' values, and a problem with the token's shape if it has one.
 */
export function pageRequestOf(
  parameter: string,
  size: number,
  token: string,
  normalized: Readonly<Record<string, string>>,
): { page: PageRequest; cursorParams: Record<string, QueryParamValue>; problem?: string } {
  const page: PageRequest = { parameter, size, parameters: pageParametersOf(normalized) };
  if (token === "") return { page, cursorParams: { cursor_timestamp: null, cursor_id: null } };
  const read = readPageToken(token);
  if (read === undefined) return { page, cursorParams: {}, problem: foreignToken(parameter) };
  const { cursor } = read;
  return {
    page: { ...page, token },
    cursorParams: { cursor_timestamp: dateTime64Of(cursor.micros), cursor_id: cursor.id },
  };
}

export interface Paging {
  /** Throws INVALID_ARGUMENT naming the page token unless it was made by this service for this call and `caller`. */
  check(page: PageRequest, caller: string): void;
  /** `rows` cut to one page, with a token for `caller` when the SQL returned a row past it. */
  cut(page: PageRequest, caller: string, rows: WarehouseRow[]): ResultPage;
}

export function createPaging(tokens: PageTokens): Paging {
  return {
    check(page, caller) {
      if (page.token === undefined) return;
      if (tokens.open(page.token, { parameters: page.parameters, caller }) === undefined) {
        throw invalidArgument([{ field: page.parameter, description: foreignToken(page.parameter) }]);
      }
    },
    cut(page, caller, rows) {
      if (rows.length <= page.size) return { rows };
      const kept = rows.slice(0, page.size);
      const last = kept[kept.length - 1]!;
      const cursor: PageCursor = { micros: microsOfIso(String(last.timestamp)), id: String(last.id) };
      return { rows: kept, nextPageToken: tokens.seal(cursor, { parameters: page.parameters, caller }) };
    },
  };
}

function foreignToken(parameter: string): string {
  return `${parameter} is not a next_page_token given for this call's other parameters and this caller`;
}

/** `2026-11-20T21:59:00.123456Z` (the warehouse's ISO output) → microseconds since the epoch. */
export function microsOfIso(text: string): bigint {
  const match = /^(.*?)(?:\.(\d{1,6}))?Z$/.exec(text);
  const ms = match === null ? Number.NaN : Date.parse(`${match[1]}Z`);
  if (match === null || Number.isNaN(ms)) throw new Error(`not an ISO timestamp: ${text}`);
  return BigInt(ms) * 1000n + BigInt((match[2] ?? "").padEnd(6, "0"));
}

/** Microseconds since the epoch → `2026-11-20 21:59:00.123456`, as DateTime64(6) parameters travel. */
export function dateTime64Of(micros: bigint): string {
  const ms = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const fraction = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  const seconds = new Date(Number(ms)).toISOString().slice(0, 19).replace("T", " ");
  return `${seconds}.${String(fraction).padStart(6, "0")}`;
}

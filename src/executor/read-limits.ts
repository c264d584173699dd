// Read limits a query runs under (`max_rows_to_read`, `max_bytes_to_read`),
// each with whose it is, and the RESOURCE_EXHAUSTED that names the one a
// query ran past or is estimated to pass. The warehouse enforces them; the
// endpoint service chooses them (endpoints/read-limit-choice.ts).
import { Code, ConnectError } from "@connectrpc/connect";

/** The ClickHouse settings of the read limits. */
export type ReadLimitName = "max_rows_to_read" | "max_bytes_to_read";

/** Whose limit it is. */
export type ReadLimitSource = "saved query" | "credential" | "default";

export interface ReadLimit {
  /** Rows or bytes, a whole number of at least 1. */
  value: number;
  source: ReadLimitSource;
}

/** The limits in force, by setting; an absent one is none. */
export type ReadLimits = Partial<Record<ReadLimitName, ReadLimit>>;

/** The ClickHouse error code a query gets past each limit: TOO_MANY_ROWS, TOO_MANY_BYTES. */
const clickHouseCodeOfLimit: Record<ReadLimitName, number> = { max_rows_to_read: 158, max_bytes_to_read: 307 };

const what: Record<ReadLimitName, string> = { max_rows_to_read: "rows", max_bytes_to_read: "bytes" };

const whose: Record<ReadLimitSource, string> = {
  "saved query": "the saved query",
  credential: "the credential",
  default: "the service's default",
};

/** The limit of `limits` that ClickHouse error `code` says was passed, if one of them is. */
export function passedReadLimit(code: number, limits: ReadLimits | undefined): ReadLimitName | undefined {
  for (const name of Object.keys(clickHouseCodeOfLimit) as ReadLimitName[]) {
    if (clickHouseCodeOfLimit[name] === code && limits?.[name] !== undefined) return name;
  }
  return undefined;
}

/** RESOURCE_EXHAUSTED naming the limit, its value and whose it is; no Retry-After, as waiting does not help. */
export function readLimitError(name: ReadLimitName, limit: ReadLimit, cause?: unknown): ConnectError {
  const message = `${what[name]} to read past the limit of ${limit.value} set by ${whose[limit.source]}`;
  return new ConnectError(message, Code.ResourceExhausted, undefined, undefined, cause);
}

/**
 * RESOURCE_EXHAUSTED for a query whose estimated rows (`EXPLAIN ESTIMATE`,
 * query-estimator.ts) pass its rows limit, refused before it runs: the
 * message of readLimitError plus the estimate. Undefined when the estimate
 * is within the limit or there is none.
 */
export function estimatePastReadLimit(
  estimate: { rows: number; parts: number; marks: number },
  limits: ReadLimits | undefined,
): ConnectError | undefined {
  const limit = limits?.max_rows_to_read;
  if (limit === undefined || estimate.rows <= limit.value) return undefined;
  const refusal = readLimitError("max_rows_to_read", limit);
  const message = `${refusal.rawMessage} (estimated ${estimate.rows} rows in ${estimate.parts} parts, ${estimate.marks} marks)`;
  return new ConnectError(message, Code.ResourceExhausted);
}

/** The settings of `limits`, for the query's SETTINGS clause. */
export function readLimitSettings(limits: ReadLimits | undefined): Partial<Record<ReadLimitName, number>> {
  const settings: Partial<Record<ReadLimitName, number>> = {};
  for (const name of Object.keys(clickHouseCodeOfLimit) as ReadLimitName[]) {
    const limit = limits?.[name];
    if (limit !== undefined) settings[name] = limit.value;
  }
  return settings;
}

/** The read limits one source sets (a saved query, a credential, the defaults); absent or 0: none. */
export interface ReadLimitValues {
  maxRowsToRead?: number;
  maxBytesToRead?: number;
}

// What a credential may carry of limits, checked when the key file or the
// token is read: a rate that is a number a bucket can refill at, a burst
// that is a number of calls, and read limits that are whole numbers. A value
// outside these is refused with the field named, never served.
import type { ReadLimitValues } from "../executor/index.js";

/** The slowest rate a credential may set: one call a day. A slower one would answer a Retry-After of years. */
export const minRatePerSecond = 1 / 86_400;

/** The fastest rate a credential may set; a faster one is no limit, and its burst no longer a count of calls. */
export const maxRatePerSecond = 1_000_000;

/** The largest burst a credential may set: that of the fastest rate. */
export const maxBurst = 2 * maxRatePerSecond;

/** Why `value` cannot be a credential's rate (calls a second), or undefined. `0` turns the limit off where `offAllowed`. */
export function rateProblem(value: unknown, offAllowed: boolean): string | undefined {
  if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number";
  if (offAllowed && value === 0) return undefined;
  if (value < minRatePerSecond)
    return `must be at least ${minRatePerSecond.toPrecision(3)} (one call a day)${offAllowed ? ", or 0" : ""}`;
  if (value > maxRatePerSecond) return `must be at most ${maxRatePerSecond} (a million calls a second)`;
  return undefined;
}

/** Why `value` cannot be a credential's burst, or undefined. */
export function burstProblem(value: unknown): string | undefined {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 1) return "must be a number of at least 1";
  return value > maxBurst ? `must be at most ${maxBurst}` : undefined;
}

/** The names of the read limits in the key file and in token claims. */
export const readLimitFields = { max_rows_to_read: "maxRowsToRead", max_bytes_to_read: "maxBytesToRead" } as const;

/**
 * The read limits among `fields` (key-file fields or token claims), or a
 * problem naming the first one that is not a whole number of at least 1.
 */
export function readLimitsOf(fields: Record<string, unknown>): {
  limits?: ReadLimitValues;
  problem?: { field: string; description: string };
} {
  let limits: ReadLimitValues | undefined;
  for (const [field, name] of Object.entries(readLimitFields)) {
    const value = fields[field];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
      return { problem: { field, description: "must be a whole number of at least 1" } };
    limits ??= {};
    limits[name] = value;
  }
  return limits === undefined ? {} : { limits };
}

// Time units and UTC truncation for working out expected buckets in tests.
export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** `ms` truncated to a multiple of `unit` (in UTC, as ClickHouse truncates). */
export const trunc = (ms: number, unit: number) => Math.floor(ms / unit) * unit;

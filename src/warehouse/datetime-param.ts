// Formats instants for ClickHouse DateTime64(6, 'UTC') parameters and columns.
//
// clickhouse-js sends a Date parameter as whole seconds, dropping milliseconds,
// so instants travel as text `YYYY-MM-DD hh:mm:ss.ffffff` instead.

/** `2026-11-20 21:59:00.123000` for the instant `ms` milliseconds after the epoch. */
export function toDateTime64Param(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-11-20T21:59:00.123Z
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000`;
}

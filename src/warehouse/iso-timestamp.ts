// Parses ISO 8601 instants (the bounds of logs.all, the timestamps of rows
// imported) into DateTime64(6, 'UTC') text, keeping microseconds (a JavaScript Date would keep only milliseconds).

const pattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** The earliest and the first past the latest instant a bound may be, as the warehouse's DateTime64 holds them. */
const earliest = Date.UTC(1900, 0, 1);
const pastLatest = Date.UTC(2300, 0, 1);

/** What is wrong with a bound, to follow its parameter's name (docs/endpoints.md, ISO 8601 bounds). */
const isoTimestampProblems = {
  malformed: "must be an ISO 8601 date or date-time, e.g. 2026-11-20T21:59:00Z",
  outOfRange: "must be between 1900-01-01 and 2299-12-31",
} as const;

/** Year, month, day, hour, minute and second, as written. */
type DateTimeFields = [number, number, number, number, number, number];

export type IsoTimestampReading =
  | { instant: string }
  | { problem: (typeof isoTimestampProblems)[keyof typeof isoTimestampProblems] };

/**
 * `2026-11-20T21:59:00.123456+01:00` → `{ instant: "2026-11-20 20:59:00.123456" }`.
 * A date alone is midnight UTC; a date-time without a zone is UTC; digits past
 * microseconds are dropped. Anything else, impossible dates such as
 * `2026-02-30` included, is malformed; a well-formed instant before 1900 or
 * after 2299 (in UTC) is out of range.
 */
export function readIsoTimestamp(text: string): IsoTimestampReading {
  const malformed = { problem: isoTimestampProblems.malformed };
  const m = pattern.exec(text.trim());
  if (m === null) return malformed;
  const [, y, mo, d, h = "00", mi = "00", s = "00", fraction = "", zone = "Z"] = m;
  const fields = [y, mo, d, h, mi, s].map(Number) as DateTimeFields;
  const [, month, day, hour, minute, second] = fields;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return malformed;
  const local = utcMs(fields);
  if (new Date(local).getUTCDate() !== day) return malformed; // 2026-02-30 rolls over
  const utc = local - zoneOffsetMs(zone);
  if (Number.isNaN(utc)) return malformed;
  if (utc < earliest || utc >= pastLatest) return { problem: isoTimestampProblems.outOfRange };
  const iso = new Date(utc).toISOString();
  return { instant: `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${fraction.slice(0, 6).padEnd(6, "0")}` };
}

/**
 * Milliseconds since the epoch of a UTC date-time, for every year: Date.UTC
 * reads years 0-99 as 1900-1999, which would turn `0050-01-01` into 1950.
 */
function utcMs([year, month, day, hour, minute, second]: DateTimeFields): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

function zoneOffsetMs(zone: string): number {
  if (zone.toUpperCase() === "Z") return 0;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || "0");
  if (hours > 23 || minutes > 59) return Number.NaN;
  return sign * (hours * 60 + minutes) * 60_000;
}

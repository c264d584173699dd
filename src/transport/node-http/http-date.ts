// Reading an HTTP-date (RFC 9110 §5.6.7) in any of its three forms:
// IMF-fixdate, the obsolete RFC 850 form and asctime; nothing else.

const dayNames = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const longDayNames = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
const monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const month = `(${monthNames.join("|")})`;
const time = "(\\d{2}):(\\d{2}):(\\d{2})";

/** `Sun, 06 Nov 1994 08:49:37 GMT`. */
const imfFixdate = new RegExp(`^${dayNames}, (\\d{2}) ${month} (\\d{4}) ${time} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT`. */
const rfc850Date = new RegExp(`^${longDayNames}, (\\d{2})-${month}-(\\d{2}) ${time} GMT$`);
/** `Sun Nov  6 08:49:37 1994`. */
const asctimeDate = new RegExp(`^${dayNames} ${month} ([ \\d]\\d) ${time} (\\d{4})$`);

/**
 * The instant (ms since the epoch) `value` names, or undefined when it is
 * not an HTTP-date. An RFC 850 two-digit year is the latest year with those
 * digits not more than 50 years after `now` (§5.6.7).
 */
export function parseHttpDate(value: string, now: number = Date.now()): number | undefined {
  let match = imfFixdate.exec(value);
  if (match !== null) return instant(+match[3]!, match[2]!, +match[1]!, match.slice(4, 7));
  match = asctimeDate.exec(value);
  if (match !== null) return instant(+match[6]!, match[1]!, +match[2]!.trim(), match.slice(3, 6));
  match = rfc850Date.exec(value);
  if (match === null) return undefined;
  const currentYear = new Date(now).getUTCFullYear();
  let year = currentYear - (currentYear % 100) + +match[3]!;
  if (year > currentYear + 50) year -= 100;
  return instant(year, match[2]!, +match[1]!, match.slice(4, 7));
}

/** The instant of a date at `clock` (hour, minute and second, as matched); undefined when out of range. */
function instant(year: number, monthName: string, day: number, clock: string[]): number | undefined {
  const monthIndex = monthNames.indexOf(monthName);
  const [hour, minute, second] = clock.map(Number) as [number, number, number];
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const ms = Date.UTC(year, monthIndex, day, hour, minute, Math.min(second, 59));
  // Date.UTC rolls 31 Feb into March: a day the month lacks is no date.
  return day >= 1 && new Date(ms).getUTCDate() === day ? ms : undefined;
}

// A saved query's version lifecycle, from its `deprecated`, `sunset` and
// `successor` options (docs/endpoints.md, Versions and deprecation): the
// Deprecation (RFC 9745) and Sunset (RFC 8594) headers its calls carry, and
// UNIMPLEMENTED naming the successor once the sunset has come.
import { Code, ConnectError } from "@connectrpc/connect";
import type { EndpointDefinition } from "../gen/endpoints/v1/endpoint_options_pb.js";

/** A deprecated version: when it was deprecated, when it stops answering, and what replaces it. */
export interface Deprecation {
  /** The deprecation day's start, milliseconds since the epoch (UTC). */
  deprecatedAt: number;
  /** The sunset day's start; undefined when none is set. */
  sunsetAt?: number;
  /** The name of the saved query that replaces it. */
  successor: string;
  /** `Deprecation` and `Sunset` as a GET answer or RPC metadata carries them. */
  headers: Readonly<Record<string, string>>;
}

/** A full-date (`2027-12-31`), as its day's start in UTC; undefined when it is not one. */
function dayStart(text: string): number | undefined {
  if (!/^\d{4}-\d\d-\d\d$/.test(text)) return undefined;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text ? undefined : ms;
}

/**
 * The deprecation of `definition`, undefined when it has none, with the
 * problems of its options: a day that is not an RFC 3339 full-date, a
 * sunset without a deprecation or not after it, a deprecation without a
 * successor, or a successor that is not among `names`.
 */
export function deprecationOf(
  definition: EndpointDefinition,
  names: ReadonlySet<string>,
): { deprecation?: Deprecation; problems: string[] } {
  const { name, deprecated, sunset, successor } = definition;
  const problems: string[] = [];
  if (deprecated === "") {
    if (sunset !== "" || successor !== "") problems.push(`${name}: sunset and successor need deprecated`);
    return { problems };
  }
  const deprecatedAt = dayStart(deprecated);
  if (deprecatedAt === undefined) problems.push(`${name}: deprecated must be an RFC 3339 date such as 2026-12-01`);
  const sunsetAt = sunset === "" ? undefined : dayStart(sunset);
  if (sunset !== "" && sunsetAt === undefined)
    problems.push(`${name}: sunset must be an RFC 3339 date such as 2027-12-31`);
  if (deprecatedAt !== undefined && sunsetAt !== undefined && sunsetAt <= deprecatedAt)
    problems.push(`${name}: sunset must be after deprecated`);
  if (successor === "") problems.push(`${name}: a deprecated saved query needs a successor`);
  else if (!names.has(successor) || successor === name)
    problems.push(`${name}: successor ${successor} is not another saved query`);
  if (problems.length > 0 || deprecatedAt === undefined) return { problems };
  const headers: Record<string, string> = { deprecation: `@${Math.floor(deprecatedAt / 1000)}` };
  if (sunsetAt !== undefined) headers.sunset = new Date(sunsetAt).toUTCString();
  return {
    deprecation:
      sunsetAt === undefined ? { deprecatedAt, successor, headers } : { deprecatedAt, sunsetAt, successor, headers },
    problems,
  };
}

/** Marks pastSunsetError's errors, which GET answers 410 Gone. */
class PastSunset extends Error {}

/** UNIMPLEMENTED for a call of `name` on or after its sunset, naming its successor. */
export function pastSunsetError(name: string, deprecation: Deprecation): ConnectError {
  const day = new Date(deprecation.sunsetAt ?? 0).toISOString().slice(0, 10);
  const message = `${name} was retired on ${day}; call ${deprecation.successor} instead`;
  return new ConnectError(message, Code.Unimplemented, undefined, undefined, new PastSunset(message));
}

/** Whether `error` is pastSunsetError's. */
export function isPastSunsetError(error: unknown): boolean {
  return error instanceof ConnectError && error.cause instanceof PastSunset;
}

/** Whether a call at `now` comes on or after the sunset of `deprecation`. */
export function isPastSunset(deprecation: Deprecation | undefined, now: number): boolean {
  return deprecation?.sunsetAt !== undefined && now >= deprecation.sunsetAt;
}

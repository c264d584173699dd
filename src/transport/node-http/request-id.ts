// The id of a request: the caller's `x-request-id` when sane, else a new one.
import { randomUUID } from "node:crypto";

/** The id of a call: the caller's `x-request-id` when sane, else a new UUID. */
export function requestIdFrom(headers: { get(name: string): string | null }): string {
  const given = headers.get("x-request-id");
  return given !== null && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

// Per-call values shared by the interceptors and handlers: the request id.
import { randomUUID } from "node:crypto";
import { createContextKey } from "@connectrpc/connect";

/** The id of a call: the caller's `x-request-id` when sane, else a new UUID. */
export const requestIdKey = createContextKey<string>("", { description: "request id" });

export function requestIdFrom(headers: { get(name: string): string | null }): string {
  const given = headers.get("x-request-id");
  return given !== null && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

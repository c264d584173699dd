// Requests that need no key (/healthz, /readyz, /metrics, /openapi.json, a
// path that is no route), counted per client address (IPv6 by its /64): one address cannot
// take the event loop from the keyed callers by asking them in a flood. Probes
// (/healthz, /readyz) have buckets of their own, so an address's scrapes or
// a scanner's misses never refuse its health checks. The RPC gate bounds gRPC
// health, reflection and unknown procedures with the same buckets.
import { Code, ConnectError } from "@connectrpc/connect";
import { createTokenBuckets, type HeaderReader } from "../../auth/index.js";
import { addressKey } from "../../network/index.js";
import type { Clock } from "../../observability/index.js";
import { clientAddress, type TrustedProxies } from "../call/client-address.js";

export interface KeylessLimitOptions {
  /** Keyless requests a second per client address and kind (probe, reflection, other); 0 turns the limit off. Default 20. */
  perSecond?: number;
  /** Keyless requests of one kind an address may make at once. Default 40. */
  burst?: number;
  /** Proxies whose X-Forwarded-For names the client. Default: none, `peer` is the client (the routes pass call.clientAddress). */
  trustedProxies?: TrustedProxies;
  /** Default: the system clock. */
  clock?: Clock;
}

/** The kind of a keyless request: health probes (HTTP or gRPC), gRPC reflection, or anything else. */
export type KeylessKind = "probe" | "reflection" | "other";

/** Throws RESOURCE_EXHAUSTED with Retry-After when the client of `peer` and `headers` is past its bound for `kind`. */
export type KeylessLimit = (kind: KeylessKind, headers: HeaderReader, peer: string) => void;

/** The defaults, for the table of variables. */
export const defaultKeylessLimit = { perSecond: 20, burst: 40 } as const;

export function createKeylessLimit(options: KeylessLimitOptions = {}): KeylessLimit {
  const perSecond = options.perSecond ?? defaultKeylessLimit.perSecond;
  if (perSecond === 0) return () => {};
  const buckets = createTokenBuckets({
    perSecond,
    burst: options.burst ?? defaultKeylessLimit.burst,
    clock: options.clock,
  });
  const trusted = options.trustedProxies;
  return (kind, headers, peer) => {
    const client = trusted === undefined ? peer : clientAddress(peer, headers.get("x-forwarded-for"), trusted);
    const retryAfter = buckets.take(`${kind} ${addressKey(client)}`);
    if (retryAfter === 0) return;
    const error = new ConnectError("too many requests from this address, try again later", Code.ResourceExhausted);
    error.metadata.set("retry-after", String(retryAfter));
    throw error;
  };
}

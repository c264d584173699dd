// A call refused by its caller's rate limit, with the caller it was refused
// to: the caller is known (its secret was good), so the transports record
// the call in the call log under it, as they record the calls admitted.
import { ConnectError } from "@connectrpc/connect";
import type { Credential } from "./credential.js";

/** RESOURCE_EXHAUSTED of a caller past its rate limit (Retry-After and RateLimit in its metadata), naming the caller. */
export class RateLimitRefusal extends ConnectError {
  constructor(
    refusal: ConnectError,
    /** The authenticated caller the rate limit refused. */
    readonly credential: Credential,
  ) {
    super(refusal.rawMessage, refusal.code, refusal.metadata);
  }
}

/** The caller a rate limit refused, when `error` is such a refusal; undefined for any other error. */
export function rateLimitedCallerOf(error: unknown): Credential | undefined {
  return error instanceof RateLimitRefusal ? error.credential : undefined;
}

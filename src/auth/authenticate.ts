// Authentication of a call from its headers alone, the same for every
// transport: the client address's failure throttle, then the key, then the
// key's rate limit. Nothing of the request body is needed or read.
import type { Clock, Logger } from "../observability/index.js";
import { Code, ConnectError } from "@connectrpc/connect";
import { createApiKeyCheck } from "./api-key-check.js";
import { presentedSecret, type Credential, type HeaderReader } from "./credential.js";
import { createAuthFailureThrottle } from "./auth-failure-throttle.js";
import { createRateLimiter } from "./rate-limiter.js";

/**
 * The credential of a call from `address` with `headers`. Throws
 * UNAUTHENTICATED for a missing or wrong key, RESOURCE_EXHAUSTED for an
 * address with too many failures or a key over its rate limit.
 */
export type Authenticator = (headers: HeaderReader, address: string) => Credential;

export interface AuthenticatorOptions {
  /** Accepted API keys; at least one. */
  apiKeys: readonly string[];
  /** Calls a second and burst per key; perSecond 0 disables. Default 100 and 200. */
  rateLimit?: { perSecond: number; burst: number };
  /** Failed authentications a second and in a row per client address; perSecond 0 disables. Default 1 and 20. */
  authFailures?: { perSecond: number; burst: number };
  /** Default: the system clock. */
  clock?: Clock;
  /** Receives the summary of failed authentications. Default: silent. */
  logger?: Logger;
}

export function createAuthenticator(options: AuthenticatorOptions): { authenticate: Authenticator; close(): void } {
  const checkKey = createApiKeyCheck(options.apiKeys);
  const limit = createRateLimiter({ ...options.rateLimit, clock: options.clock });
  const throttle = createAuthFailureThrottle({ ...options.authFailures, clock: options.clock, logger: options.logger });
  return {
    authenticate(headers, address) {
      throttle.check(address);
      const credential = checkKey(presentedSecret(headers));
      if (credential === undefined) {
        throttle.fail(address);
        throw new ConnectError("missing or invalid API key", Code.Unauthenticated);
      }
      limit(credential.id);
      return credential;
    },
    close: () => throttle.close(),
  };
}

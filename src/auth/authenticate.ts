// Authentication of a call from its headers alone, the same for every
// transport: the client address's failure throttle, then the presented
// secret (a signed token, a key of the key file, or a key of API_KEYS), then
// the caller's rate limit. Nothing of the request body is needed or read.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Clock, Logger } from "../observability/index.js";
import { createApiKeyCheck } from "./api-key-check.js";
import { createAuthFailureThrottle } from "./auth-failure-throttle.js";
import { presentedSecret, seeingOwnCallsOnly, type Credential, type HeaderReader } from "./credential.js";
import { keyDigest, type KeyFile } from "./key-file.js";
import { RateLimitRefusal } from "./rate-limit-refusal.js";
import { createRateLimiter } from "./rate-limiter.js";
import { InvalidTokenError, looksLikeToken, type TokenVerifier } from "./token-verifier.js";

/**
 * The credential of a call from `address` with `headers`: at once for keys
 * and tokens verified before, as a promise for a token seen for the first
 * time. Throws (or rejects) UNAUTHENTICATED for a missing or wrong key or an
 * invalid token, RESOURCE_EXHAUSTED for an address with too many failures or
 * a caller over its rate limit.
 */
export type Authenticator = (headers: HeaderReader, address: string) => Credential | Promise<Credential>;

export interface AuthenticatorOptions {
  /** Full-access keys (API_KEYS). */
  apiKeys: readonly string[];
  /** Scoped keys (API_KEYS_FILE). */
  keyFile?: KeyFile;
  /** Signed tokens (JWT_SECRET, JWT_PUBLIC_KEY, JWT_JWKS_FILE or OIDC_ISSUERS; token-routing.ts). */
  verifyToken?: TokenVerifier;
  /** Calls a second and burst per caller unless its credential says otherwise; perSecond 0 disables. Default 100 and 200. */
  rateLimit?: { perSecond: number; burst: number };
  /** Failed authentications a second and in a row per client address; perSecond 0 disables. Default 1 and 20. */
  authFailures?: { perSecond: number; burst: number };
  /** Default: the system clock. */
  clock?: Clock;
  /** Receives the summary of failed authentications. Default: silent. */
  logger?: Logger;
}

export function createAuthenticator(options: AuthenticatorOptions): { authenticate: Authenticator; close(): void } {
  const { keyFile, verifyToken } = options;
  if (options.apiKeys.length === 0 && keyFile === undefined && verifyToken === undefined) {
    throw new Error("at least one API key, key file or token key is required");
  }
  const checkKey = createApiKeyCheck(options.apiKeys);
  const limit = createRateLimiter({ ...options.rateLimit, clock: options.clock });
  const throttle = createAuthFailureThrottle({ ...options.authFailures, clock: options.clock, logger: options.logger });

  /** A wrong secret is a failed authentication of `address`; no secret at all (a preflight, a no-cors request) is not. */
  const refused = (address: string, presented: boolean, error?: unknown) => {
    if (presented) throttle.fail(address);
    return refusal(error);
  };
  const admitted = (credential: Credential) => {
    try {
      limit(credential.id, credential.rateLimit);
    } catch (error) {
      throw new RateLimitRefusal(error as ConnectError, credential);
    }
    return credential;
  };

  return {
    authenticate(headers, address) {
      throttle.check(address);
      const secret = presentedSecret(headers);
      // Keys first (an operator's key may look like a token), then a token.
      // A key-file key or a token sees only its own calls in service.call-stats; an API_KEYS key sees all.
      const fileKey = secret === undefined ? undefined : keyFile?.lookup(keyDigest(secret));
      if (fileKey !== undefined) return admitted(seeingOwnCallsOnly(fileKey));
      const key = secret === undefined ? undefined : checkKey(secret);
      if (key !== undefined) return admitted(key);
      if (secret === undefined) throw refused(address, false);
      if (verifyToken === undefined || !looksLikeToken(secret)) throw refused(address, true);
      let verified: Credential | Promise<Credential>;
      try {
        verified = verifyToken(secret);
      } catch (error) {
        throw refused(address, true, error);
      }
      if (!(verified instanceof Promise)) return admitted(seeingOwnCallsOnly(verified));
      // A token seen for the first time: its place among the address's failures is taken now.
      throttle.reserve(address);
      return verified.then(
        (credential) => {
          throttle.settle(address, false);
          return admitted(seeingOwnCallsOnly(credential));
        },
        (error: unknown) => {
          throttle.settle(address, true);
          return Promise.reject(refusal(error));
        },
      );
    },
    close() {
      throttle.close();
      keyFile?.close();
    },
  };
}

/** UNAUTHENTICATED, saying why a token is not valid (expired, another audience, a claim named); a wrong key says nothing more. */
function refusal(error: unknown): ConnectError {
  return error instanceof InvalidTokenError
    ? new ConnectError(`invalid token: ${error.message}`, Code.Unauthenticated)
    : new ConnectError("missing or invalid API key", Code.Unauthenticated);
}

// Tokens verified once, kept by their text until they expire, so that a
// token's signature is checked once, not on every call: bounded in number
// (the oldest let go first), and refused from the cache once past its `exp`
// or before its `nbf`, in the words its verifier uses.
import type { Clock } from "../observability/index.js";
import type { Credential } from "./credential.js";
import { expiringAt } from "./credential.js";

/** What a verifier says of a kept token out of its time. */
export interface TimeRefusals {
  expired: () => Error;
  notYetValid: () => Error;
}

export interface VerifiedTokens {
  /** The credential of a token verified before; undefined when it was not. Throws once it is out of its time. */
  find(token: string): Credential | undefined;
  /** Keeps `credential` for `token` from `notBefore` until `expiresAt` (ms since the epoch); returns it. */
  keep(token: string, credential: Credential, window: { notBefore: number; expiresAt: number }): Credential;
}

export function createVerifiedTokens(clock: Clock, maxKept: number, refusals: TimeRefusals): VerifiedTokens {
  const kept = new Map<string, { credential: Credential; expiresAt: number; notBefore: number }>();
  return {
    find(token) {
      const known = kept.get(token);
      if (known === undefined) return undefined;
      const now = clock();
      if (now >= known.expiresAt) {
        kept.delete(token);
        throw refusals.expired();
      }
      if (now < known.notBefore) throw refusals.notYetValid();
      return known.credential;
    },
    keep(token, credential, { notBefore, expiresAt }) {
      if (kept.size >= maxKept) kept.delete(kept.keys().next().value!);
      kept.set(token, { credential: expiringAt(credential, expiresAt), expiresAt, notBefore });
      return credential;
    },
  };
}

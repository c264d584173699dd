// Checks a presented secret against the full-access keys of API_KEYS, in
// constant time.
import { hash } from "node:crypto";
import type { Credential } from "./credential.js";

/** The credential of an accepted full-access key, or undefined. */
export type ApiKeyCheck = (presented: string | undefined) => Credential | undefined;

/**
 * Creates the check for `keys`. The presented key is compared with every
 * accepted key, each over its whole length with no early exit, so the time
 * taken depends on the accepted keys' lengths alone: not on what was
 * presented, how much of it matched, or which key it matched.
 */
export function createApiKeyCheck(keys: readonly string[]): ApiKeyCheck {
  const accepted = [...keys];
  // Full access includes the import scope and personal data as stored.
  const credentials: Credential[] = keys.map((key) => ({ id: keyId(key), mayImport: true, unmasked: true }));
  return (presented) => {
    let match = -1;
    if (presented !== undefined) {
      for (let i = 0; i < accepted.length; i++) {
        if (sameKey(presented, accepted[i]!)) match = i;
      }
    }
    return match < 0 ? undefined : credentials[match];
  };
}

/**
 * Whether `presented` equals `accepted`, in a time set by accepted's length:
 * every character of `accepted` is compared and the differences OR-ed
 * together, with no branch on a character, cheaper on every call than hashing
 * both for timingSafeEqual. Past its end, `presented` wraps around; its length
 * already differs then.
 */
function sameKey(presented: string, accepted: string): boolean {
  const length = presented.length;
  let difference = length ^ accepted.length;
  for (let i = 0; i < accepted.length; i++) {
    difference |= presented.charCodeAt(i % length) ^ accepted.charCodeAt(i);
  }
  return difference === 0;
}

/** A short id of a key for the rate limiter: the start of its SHA-256, never the key. */
function keyId(key: string): string {
  return `api-key:${hash("sha256", key, "hex").slice(0, 12)}`;
}

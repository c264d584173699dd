// Checks the API key of a call: `X-API-KEY` (gRPC metadata `x-api-key`) or
// `Authorization: Bearer <key>`, compared in constant time.
import { hash, timingSafeEqual } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";

/** Header lookup by lowercase name: a fetch Headers, or a cheaper view of a Node request's headers. */
export interface HeaderReader {
  get(name: string): string | null;
}

/**
 * Throws UNAUTHENTICATED unless `headers` carry an accepted key, and
 * RESOURCE_EXHAUSTED when that key is over its rate limit.
 */
export type ApiKeyCheck = (headers: HeaderReader) => void;

export interface ApiKeyCheckOptions {
  /** Called with a short id of the accepted key (never the key): the rate limit. Default: none. */
  limit?: (keyId: string) => void;
}

/**
 * Creates the check for `keys`. Keys are compared as SHA-256 digests with
 * timingSafeEqual, against every accepted key, so neither the length nor the
 * position of a match shows in the time taken. A missing and a wrong key get
 * the same answer.
 */
export function createApiKeyCheck(keys: readonly string[], options: ApiKeyCheckOptions = {}): ApiKeyCheck {
  if (keys.length === 0) throw new Error("at least one API key is required");
  const accepted = keys.map(digest);
  const ids = accepted.map((d) => d.subarray(0, 6).toString("hex"));
  const limit = options.limit ?? (() => {});
  return (headers) => {
    const presented = presentedKey(headers);
    let match = -1;
    if (presented !== undefined) {
      const candidate = digest(presented);
      for (let i = 0; i < accepted.length; i++) {
        if (timingSafeEqual(candidate, accepted[i]!)) match = i;
      }
    }
    if (match < 0) throw new ConnectError("missing or invalid API key", Code.Unauthenticated);
    limit(ids[match]!);
  };
}

function presentedKey(headers: HeaderReader): string | undefined {
  const apiKey = headers.get("x-api-key");
  if (apiKey !== null && apiKey !== "") return apiKey;
  const authorization = headers.get("authorization");
  const bearer = authorization === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return bearer?.[1];
}

function digest(key: string): Buffer {
  return hash("sha256", key, "buffer");
}

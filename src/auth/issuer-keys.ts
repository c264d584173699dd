// The signing keys of one OpenID Connect issuer: its discovery document read
// once, its JWKS kept as long as the provider's Cache-Control says and
// refreshed in the background, fetched again for an unknown `kid` at most
// once per `minRefreshMs`; while the provider is down, the keys fetched last
// keep serving.
import type { JSONWebKeySet, JWK } from "jose";
import type { Clock, Logger } from "../observability/index.js";
import { type JsonFetcher, urlProblem } from "./fetch-json.js";

export interface IssuerKeysOptions {
  /** The issuer's URL, as its tokens' `iss` and its discovery document's `issuer` write it. */
  issuer: string;
  /** Reads the discovery document and the JWKS (fetch-json.ts). */
  fetchJson: JsonFetcher;
  /** Fetches are at least this far apart, however many unknown `kid`s arrive; also the wait after a failed one. */
  minRefreshMs: number;
  /** How long a JWKS stays fresh when its Cache-Control says nothing. Default 5 minutes. */
  defaultRefreshMs?: number;
  /** The longest a JWKS is kept before it is fetched again, whatever its Cache-Control. Default 1 day. */
  maxRefreshMs?: number;
  clock: Clock;
  logger: Logger;
}

export interface IssuerKeys {
  /** The public key `kid` names, fetching the JWKS again when it is unknown and the last fetch is old enough. */
  keyFor(kid: string): Promise<JWK | undefined>;
  /** Whether a JWKS was ever fetched: until then the issuer's tokens cannot be checked. */
  hasKeys(): boolean;
  /** Stops the background refresh. */
  close(): void;
}

export const defaultJwksRefreshMs = 5 * 60_000;
const maxTimerMs = 24 * 3_600_000;

export function createIssuerKeys(options: IssuerKeysOptions): IssuerKeys {
  const { issuer, fetchJson, minRefreshMs, clock, logger } = options;
  const defaultRefreshMs = options.defaultRefreshMs ?? defaultJwksRefreshMs;
  const maxRefreshMs = Math.min(options.maxRefreshMs ?? maxTimerMs, maxTimerMs);
  let jwksUri: string | undefined;
  let keys: Map<string, JWK> | undefined;
  let lastFetchAt = Number.NEGATIVE_INFINITY;
  let fetching: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const schedule = (delayMs: number) => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), Math.min(Math.max(delayMs, minRefreshMs), maxRefreshMs));
    timer.unref();
  };

  async function fetchKeys(): Promise<number | undefined> {
    if (jwksUri === undefined) jwksUri = discoveredJwksUri(issuer, (await fetchJson(discoveryUrl(issuer))).value);
    const { value, maxAgeMs } = await fetchJson(jwksUri);
    keys = publicKeysOf(value, jwksUri);
    return maxAgeMs;
  }

  function refresh(): Promise<void> {
    fetching ??= (async () => {
      lastFetchAt = clock();
      try {
        const maxAgeMs = await fetchKeys();
        schedule(maxAgeMs ?? defaultRefreshMs);
      } catch (error) {
        logger.warn("issuer keys not fetched; the keys fetched before stay in force", {
          issuer,
          error: (error as Error).message,
        });
        schedule(minRefreshMs);
      } finally {
        fetching = undefined;
      }
    })();
    return fetching;
  }

  void refresh();
  return {
    async keyFor(kid) {
      const known = keys?.get(kid);
      if (known !== undefined) return known;
      if (fetching !== undefined) await fetching;
      else if (clock() - lastFetchAt >= minRefreshMs) await refresh();
      return keys?.get(kid);
    },
    hasKeys: () => keys !== undefined,
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}

/** Where an issuer's discovery document is: `/.well-known/openid-configuration` under its URL. */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
}

/** The `jwks_uri` of a discovery document, which must name `issuer` as its own and be fetchable. */
function discoveredJwksUri(issuer: string, document: unknown): string {
  const url = discoveryUrl(issuer);
  const { issuer: named, jwks_uri: jwksUri } = (document ?? {}) as { issuer?: unknown; jwks_uri?: unknown };
  if (named !== issuer) throw new Error(`${url} names issuer ${JSON.stringify(named)}, not ${issuer}`);
  if (typeof jwksUri !== "string") throw new Error(`${url} has no jwks_uri`);
  const problem = urlProblem(jwksUri);
  if (problem !== undefined) throw new Error(`${url}: jwks_uri ${jwksUri} ${problem}`);
  return jwksUri;
}

/** The public signing keys of a JWKS by `kid`; keys without a `kid`, symmetric or private keys, or keys for encryption are left out. */
function publicKeysOf(document: unknown, url: string): Map<string, JWK> {
  const { keys } = (document ?? {}) as Partial<JSONWebKeySet>;
  if (!Array.isArray(keys)) throw new Error(`${url} is not a JWKS (no keys)`);
  const byKid = new Map<string, JWK>();
  for (const key of keys as JWK[]) {
    if (typeof key !== "object" || key === null || typeof key.kid !== "string") continue;
    if (key.kty === "oct" || key.d !== undefined || (key.use !== undefined && key.use !== "sig")) continue;
    byKid.set(key.kid, key);
  }
  return byKid;
}

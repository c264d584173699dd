// Access tokens of trusted OpenID Connect issuers: the issuer chosen by the
// token's `iss`, its signature checked with the issuer's published key named
// by `kid` (issuer-keys.ts) under an allow-list of asymmetric algorithms,
// then `iss`, `aud`, `exp` and `nbf` within a clock skew, then the issuer's
// claim mapping (claim-mapping.ts). A token verified once is kept until it
// expires.
import type { JWK, JWTHeaderParameters, JWTPayload } from "jose";
import { type Clock, type Logger, silentLogger, systemClock } from "../observability/index.js";
import { type ClaimMapping, mappedCredential } from "./claim-mapping.js";
import type { Credential } from "./credential.js";
import { createVerifiedTokens } from "./verified-tokens.js";
import { createJsonFetcher, type JsonFetcher } from "./fetch-json.js";
import { createIssuerKeys, type IssuerKeys } from "./issuer-keys.js";
import { InvalidTokenError, type TokenVerifier } from "./token-verifier.js";

/** One trusted issuer (OIDC_ISSUERS). */
export interface OidcIssuer {
  /** Its URL, exactly as its tokens' `iss` writes it. */
  issuer: string;
  /** The `aud` its tokens must carry for this service. */
  audience: string;
  /** Names its callers: `token:<name>/<sub>`. */
  name: string;
  /** The algorithms its tokens may be signed with; asymmetric only. */
  algorithms: readonly string[];
  /** Which claims say what a token may do; undefined: the service's own claim names, each optional. */
  claims?: ClaimMapping;
}

/** The asymmetric algorithms an issuer may use; `none` and the HMAC ones (HS*) are never accepted. */
export const asymmetricAlgorithms = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
] as const;

export interface OidcVerifierOptions {
  issuers: readonly OidcIssuer[];
  /** How far `exp` and `nbf` may be off (OIDC_CLOCK_SKEW_SECONDS). Default 60,000 ms. */
  clockSkewMs?: number;
  /** The least time between two JWKS fetches of one issuer (OIDC_JWKS_MIN_REFRESH_SECONDS). Default 30,000 ms. */
  minRefreshMs?: number;
  /** Reads discovery documents and key sets. Default: over HTTPS with fetch-json.ts's timeout and size bounds. */
  fetchJson?: JsonFetcher;
  /** Endpoint names a token may list, and parameter names it may fix. */
  knownEndpoints: ReadonlySet<string>;
  knownParameters: ReadonlySet<string>;
  /** Default: the system clock. */
  clock?: Clock;
  /** Receives failed key fetches. Default: silent. */
  logger?: Logger;
  /** Most verified tokens kept. Default 10,000. */
  maxKept?: number;
}

export interface OidcVerifier {
  /** Whether `iss` names one of the trusted issuers. */
  trusts(iss: string): boolean;
  verify: TokenVerifier;
  /** Whether every issuer's keys were fetched at least once. */
  hasKeys(): boolean;
  /** Stops the background key refreshes. */
  close(): void;
}

export const defaultClockSkewMs = 60_000;
export const defaultMinJwksRefreshMs = 30_000;

export function createOidcVerifier(options: OidcVerifierOptions): OidcVerifier {
  const clock = options.clock ?? systemClock;
  const skewMs = options.clockSkewMs ?? defaultClockSkewMs;
  const fetchJson = options.fetchJson ?? createJsonFetcher();
  const issuers = new Map<string, { issuer: OidcIssuer; keys: IssuerKeys }>();
  for (const issuer of options.issuers) {
    for (const [parameter, claim] of Object.entries(issuer.claims?.fixed ?? {})) {
      if (!options.knownParameters.has(parameter))
        throw new Error(
          `OIDC_ISSUERS: issuer ${issuer.issuer} fixes ${parameter} from claim ${claim}, but no endpoint has a parameter ${parameter}`,
        );
    }
    const keys = createIssuerKeys({
      issuer: issuer.issuer,
      fetchJson,
      minRefreshMs: options.minRefreshMs ?? defaultMinJwksRefreshMs,
      clock,
      logger: options.logger ?? silentLogger,
    });
    issuers.set(issuer.issuer, { issuer, keys });
  }
  const kept = createVerifiedTokens(clock, options.maxKept ?? 10_000, {
    expired: () => new InvalidTokenError('"exp" claim timestamp check failed'),
    notYetValid: () => new InvalidTokenError('"nbf" claim timestamp check failed'),
  });

  async function verify(token: string): Promise<Credential> {
    const { importJWK, jwtVerify } = await import("jose");
    const trusted = issuers.get(unverifiedIssuer(token) ?? "");
    if (trusted === undefined) throw new InvalidTokenError("token issuer is not trusted");
    const { issuer, keys } = trusted;
    const keyOf = async (header: JWTHeaderParameters) => {
      const jwk = await publishedKey(keys, header);
      return importJWK(jwk, header.alg);
    };
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keyOf, {
        issuer: issuer.issuer,
        audience: issuer.audience,
        algorithms: [...issuer.algorithms],
        clockTolerance: skewMs / 1000,
        currentDate: new Date(clock()),
        requiredClaims: ["exp", "sub"],
      }));
    } catch (error) {
      throw error instanceof InvalidTokenError ? error : new InvalidTokenError((error as Error).message);
    }
    const subject = `token:${issuer.name}/${payload.sub}`;
    const window = { expiresAt: payload.exp! * 1000 + skewMs, notBefore: (payload.nbf ?? 0) * 1000 - skewMs };
    return kept.keep(token, mappedCredential(subject, payload, issuer.claims, options), window);
  }

  return {
    trusts: (iss) => issuers.has(iss),
    verify: (token) => kept.find(token) ?? verify(token),
    hasKeys: () => [...issuers.values()].every(({ keys }) => keys.hasKeys()),
    close() {
      for (const { keys } of issuers.values()) keys.close();
    },
  };
}

/** The `iss` a token says it has, unverified (only to choose its verifier); undefined when it has none or does not decode. */
export function unverifiedIssuer(token: string): string | undefined {
  const payload = token.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const { iss } = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { iss?: unknown };
    return typeof iss === "string" ? iss : undefined;
  } catch {
    return undefined;
  }
}

/** The issuer's key that `header.kid` names, for `header.alg`; throws InvalidTokenError saying why there is none. */
async function publishedKey(keys: IssuerKeys, header: JWTHeaderParameters): Promise<JWK> {
  const { kid, alg } = header;
  if (typeof kid !== "string") throw new InvalidTokenError("token header has no kid");
  const jwk = await keys.keyFor(kid);
  if (jwk === undefined) {
    throw new InvalidTokenError(
      keys.hasKeys() ? `kid ${kid} is not among the issuer's keys` : "the issuer's keys could not be fetched yet",
    );
  }
  if (jwk.alg !== undefined && jwk.alg !== alg)
    throw new InvalidTokenError(`kid ${kid} is a key for ${jwk.alg}, not ${alg}`);
  return jwk;
}

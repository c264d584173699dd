// Signed tokens (JWT, verified with jose): HS256 with a shared secret, or
// RS256, ES256 and EdDSA with a public key or a JWKS. Claims: `exp`
// (required), `nbf`, `sub` (the caller's id), `endpoints`, `fixed`, `rps`,
// `import`, `unmasked`, `max_rows_to_read` and `max_bytes_to_read`, with the
// meaning of the key file's fields. A token verified once is kept
// until it expires, so a repeated call costs a Map lookup, not a signature.
import { createPublicKey, hash, type KeyObject } from "node:crypto";
import type { JSONWebKeySet, JWTPayload } from "jose";
import { type Clock, systemClock } from "../observability/index.js";
import type { Credential } from "./credential.js";
import { createVerifiedTokens } from "./verified-tokens.js";
import { rateProblem, readLimitsOf } from "./credential-limits.js";

export interface TokenVerifierOptions {
  /** `JWT_SECRET`: HS256 tokens. */
  secret?: string;
  /** `JWT_PUBLIC_KEY`: a PEM public key for RS256, ES256 or EdDSA tokens. */
  publicKeyPem?: string;
  /** `JWT_JWKS_FILE`, parsed: keys for RS256, ES256 or EdDSA tokens, chosen by `kid`. */
  jwks?: JSONWebKeySet;
  /** Endpoint names a token may list, and parameter names it may fix. */
  knownEndpoints: ReadonlySet<string>;
  knownParameters: ReadonlySet<string>;
  /** Default: the system clock (`exp` and `nbf` are read against it). */
  clock?: Clock;
  /** Most verified tokens kept. Default 10,000. */
  maxKept?: number;
}

/** The credential of a token, or throws (or rejects) when it is not valid now. */
export type TokenVerifier = (token: string) => Credential | Promise<Credential>;

/** A token that does not verify: wrong signature, malformed, expired, not yet valid, or claims of the wrong shape. */
export class InvalidTokenError extends Error {
  override readonly name = "InvalidTokenError";
}

/** Whether `secret` has the shape of a JWT (three base64url parts), not of an API key. */
export function looksLikeToken(secret: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(secret);
}

export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  if (options.secret === undefined && options.publicKeyPem === undefined && options.jwks === undefined) {
    throw new Error("a token verifier needs a secret, a public key or a JWKS");
  }
  const clock = options.clock ?? systemClock;
  // jose is loaded with the first token, not at start: most installations verify none.
  let key: Promise<VerificationKey> | undefined;
  const kept = createVerifiedTokens(clock, options.maxKept ?? 10_000, {
    expired: () => new InvalidTokenError("token expired"),
    notYetValid: () => new InvalidTokenError("token not yet valid"),
  });

  async function verify(token: string): Promise<Credential> {
    const { jwtVerify } = await import("jose");
    const { key: verifyWith, algorithms } = await (key ??= verificationKey(options));
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, verifyWith as never, {
        algorithms,
        requiredClaims: ["exp"],
        currentDate: new Date(clock()),
      }));
    } catch (error) {
      throw new InvalidTokenError((error as Error).message);
    }
    const window = { expiresAt: payload.exp! * 1000, notBefore: (payload.nbf ?? 0) * 1000 };
    return kept.keep(token, credentialOf(token, payload, options), window);
  }

  return (token) => kept.find(token) ?? verify(token);
}

interface VerificationKey {
  key: Uint8Array | KeyObject | ((...args: never[]) => unknown);
  algorithms: string[];
}

async function verificationKey(options: TokenVerifierOptions): Promise<VerificationKey> {
  if (options.secret !== undefined) return { key: new TextEncoder().encode(options.secret), algorithms: ["HS256"] };
  if (options.publicKeyPem !== undefined)
    return { key: createPublicKey(options.publicKeyPem), algorithms: ["RS256", "ES256", "EdDSA"] };
  if (options.jwks !== undefined) {
    const { createLocalJWKSet } = await import("jose");
    return { key: createLocalJWKSet(options.jwks), algorithms: ["RS256", "ES256", "EdDSA"] };
  }
  throw new Error("a token verifier needs a secret, a public key or a JWKS");
}

function credentialOf(token: string, payload: JWTPayload, known: TokenVerifierOptions): Credential {
  const {
    sub,
    endpoints,
    fixed,
    rps,
    import: mayImport,
    unmasked,
  } = payload as JWTPayload & {
    endpoints?: unknown;
    fixed?: unknown;
    rps?: unknown;
    import?: unknown;
    unmasked?: unknown;
  };
  // Token callers are named apart from keys and the service's own work. Without
  // a subject the signed part is the caller (by a hash, never the token): the
  // signature is left out, as one token can be written with several.
  const signed = token.slice(0, token.lastIndexOf("."));
  const credential: Credential = {
    id: typeof sub === "string" && sub !== "" ? `token:${sub}` : `token:${hash("sha256", signed, "hex").slice(0, 12)}`,
  };
  if (endpoints !== undefined) {
    if (!Array.isArray(endpoints) || !endpoints.every((e) => typeof e === "string" && known.knownEndpoints.has(e))) {
      throw new InvalidTokenError("claim endpoints must list endpoint names");
    }
    credential.endpoints = new Set(endpoints as string[]);
  }
  if (fixed !== undefined) {
    const entries =
      typeof fixed === "object" && fixed !== null && !Array.isArray(fixed) ? Object.entries(fixed) : undefined;
    if (
      entries === undefined ||
      !entries.every(([name, value]) => known.knownParameters.has(name) && typeof value === "string")
    ) {
      throw new InvalidTokenError("claim fixed must map parameter names to strings");
    }
    credential.fixed = Object.fromEntries(entries) as Record<string, string>;
  }
  if (rps !== undefined) {
    if (typeof rps !== "number" || !(rps > 0)) throw new InvalidTokenError("claim rps must be a positive number");
    const problem = rateProblem(rps, false);
    if (problem !== undefined) throw new InvalidTokenError(`claim rps ${problem}`);
    credential.rateLimit = { perSecond: rps, burst: Math.max(1, 2 * rps) };
  }
  if (mayImport !== undefined && typeof mayImport !== "boolean")
    throw new InvalidTokenError("claim import must be true or false");
  if (mayImport === true) credential.mayImport = true;
  if (unmasked !== undefined && typeof unmasked !== "boolean")
    throw new InvalidTokenError("claim unmasked must be true or false");
  if (unmasked === true) credential.unmasked = true;
  const { limits, problem } = readLimitsOf(payload as Record<string, unknown>);
  if (problem !== undefined) throw new InvalidTokenError(`claim ${problem.field} ${problem.description}`);
  if (limits !== undefined) credential.readLimits = limits;
  return credential;
}

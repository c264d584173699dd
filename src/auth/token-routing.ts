// Which verifier a signed token goes to when several kinds are on: a token
// whose `iss` names a trusted OpenID Connect issuer goes to that issuer's
// checks, any other to the service's own keys (JWT_SECRET, JWT_PUBLIC_KEY or
// JWT_JWKS_FILE), when set.
import { type OidcVerifier, unverifiedIssuer } from "./oidc-verifier.js";
import { InvalidTokenError, type TokenVerifier } from "./token-verifier.js";

/** One verifier for tokens of the OIDC issuers and of the service's own keys; at least one of them is given. */
export function routeTokens(oidc: OidcVerifier | undefined, ownKeys: TokenVerifier | undefined): TokenVerifier {
  if (oidc === undefined) {
    if (ownKeys === undefined) throw new Error("routing tokens needs OIDC issuers or a token key");
    return ownKeys;
  }
  return (token) => {
    const iss = unverifiedIssuer(token);
    if (iss !== undefined && oidc.trusts(iss)) return oidc.verify(token);
    if (ownKeys !== undefined) return ownKeys(token);
    throw new InvalidTokenError(iss === undefined ? "token has no iss claim" : `issuer ${iss} is not trusted`);
  };
}

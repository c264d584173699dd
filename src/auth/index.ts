// Authentication: API keys checked in constant time, per-key rate limits and
// per-address throttling of failures, the same for every transport.
export { createApiKeyCheck } from "./api-key-check.js";
export { expiryOf, isScoped, presentedSecret, seeingOwnCallsOnly } from "./credential.js";
export { isScopedFor } from "./endpoint-scope.js";
export type { ParameterNames } from "./endpoint-scope.js";
export { assertImportScope } from "./import-scope.js";
export type { Credential, HeaderReader } from "./credential.js";
export { createAuthenticator } from "./authenticate.js";
export type { Authenticator } from "./authenticate.js";
export { createRateLimiter } from "./rate-limiter.js";
export { RateLimitRefusal, rateLimitedCallerOf } from "./rate-limit-refusal.js";
export { createTokenBuckets } from "./token-buckets.js";
export { loadOrCreateApiKey, loadOrCreateSecret, readStoredApiKey } from "./stored-secrets.js";
export type { StoredSecret } from "./stored-secrets.js";
export { openKeyFile, parseKeyFile, keyDigest } from "./key-file.js";
export { createTokenVerifier, InvalidTokenError } from "./token-verifier.js";
export type { TokenVerifierOptions } from "./token-verifier.js";
export {
  asymmetricAlgorithms,
  createOidcVerifier,
  defaultClockSkewMs,
  defaultMinJwksRefreshMs,
} from "./oidc-verifier.js";
export type { OidcIssuer, OidcVerifierOptions } from "./oidc-verifier.js";
export { mappedFields } from "./claim-mapping.js";
export type { ClaimMapping } from "./claim-mapping.js";
export { urlProblem } from "./fetch-json.js";
export { routeTokens } from "./token-routing.js";
export { issueToken, parseDuration } from "./token-issuer.js";

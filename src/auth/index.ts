// Authentication: API keys checked in constant time, per-key rate limits and
// per-address throttling of failures, the same for every transport.
export { createApiKeyCheck } from "./api-key-check.js";
export type { ApiKeyCheck } from "./api-key-check.js";
export { isScoped, presentedSecret } from "./credential.js";
export type { Credential, HeaderReader } from "./credential.js";
export { createAuthenticator } from "./authenticate.js";
export type { Authenticator, AuthenticatorOptions } from "./authenticate.js";
export { createAuthFailureThrottle, throttledAddress, defaultAuthFailures } from "./auth-failure-throttle.js";
export type { AuthFailureThrottle, AuthFailureThrottleOptions } from "./auth-failure-throttle.js";
export { createRateLimiter, defaultRateLimit } from "./rate-limiter.js";
export type { RateLimiter, RateLimitOptions } from "./rate-limiter.js";
export { createTokenBuckets } from "./token-buckets.js";
export type { TokenBuckets, TokenBucketsOptions } from "./token-buckets.js";
export { loadOrCreateApiKey, apiKeyFileName } from "./api-key-file.js";
export { openKeyFile, defaultKeyFilePollMs, parseKeyFile, keyDigest, KeyFileError } from "./key-file.js";
export type { KeyFile, KeyFileOptions } from "./key-file.js";
export { createTokenVerifier, looksLikeToken, InvalidTokenError } from "./token-verifier.js";
export type { TokenVerifier, TokenVerifierOptions } from "./token-verifier.js";
export { issueToken, parseDuration } from "./token-issuer.js";
export type { TokenClaims, IssueOptions } from "./token-issuer.js";

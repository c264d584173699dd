// Authentication: API keys checked in constant time, per-key rate limits and
// per-address throttling of failures, the same for every transport.
export { createApiKeyCheck } from "./api-key-check.js";
export type { ApiKeyCheck } from "./api-key-check.js";
export { isScoped, presentedSecret } from "./credential.js";
export type { Credential, HeaderReader } from "./credential.js";
export { createAuthenticator } from "./authenticate.js";
export type { Authenticator, AuthenticatorOptions } from "./authenticate.js";
export { createAuthFailureThrottle } from "./auth-failure-throttle.js";
export type { AuthFailureThrottle, AuthFailureThrottleOptions } from "./auth-failure-throttle.js";
export { createRateLimiter } from "./rate-limiter.js";
export type { RateLimiter, RateLimitOptions } from "./rate-limiter.js";
export { createTokenBuckets } from "./token-buckets.js";
export type { TokenBuckets, TokenBucketsOptions } from "./token-buckets.js";
export { loadOrCreateApiKey, apiKeyFileName } from "./api-key-file.js";

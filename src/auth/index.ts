// Authentication: API keys checked in constant time, for Connect and for GET.
export { createApiKeyCheck } from "./api-key-check.js";
export type { ApiKeyCheck, ApiKeyCheckOptions, HeaderReader } from "./api-key-check.js";
export { createRateLimiter } from "./rate-limiter.js";
export type { RateLimiter, RateLimitOptions } from "./rate-limiter.js";
export { loadOrCreateApiKey, apiKeyFileName } from "./api-key-file.js";
export { authInterceptor } from "./auth-interceptor.js";
export { keylessServices, isKeylessPath } from "./keyless.js";

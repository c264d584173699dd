// Authentication: API keys checked in constant time, for Connect and for GET.
export { createApiKeyCheck } from "./api-key-check.js";
export type { ApiKeyCheck, HeaderReader } from "./api-key-check.js";
export { loadOrCreateApiKey, apiKeyFileName } from "./api-key-file.js";
export { authInterceptor } from "./auth-interceptor.js";

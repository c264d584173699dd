// Configuration: environment variables in, a validated Config out.
export { readConfig, ConfigError, apiKeyProblem } from "./env.js";
export type { Config, CredentialsConfig, Limits, WarehouseConfig } from "./env.js";

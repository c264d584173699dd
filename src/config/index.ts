// Configuration: environment variables in, a validated Config out.
export { readConfig, ConfigError } from "./env.js";
export type { Config, WarehouseConfig } from "./env.js";

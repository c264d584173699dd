// Configuration: environment variables in, a validated Config out; the table
// of variables also gives `--help` and docs/configuration.md their lists.
export { readConfig } from "./read-config.js";
export { ConfigError } from "./config.js";
export type { Config, CredentialsConfig } from "./config.js";
export { apiKeyProblem, variables } from "./variables.js";
export { configurationHelp, configurationTables } from "./variable-docs.js";

// The keys `logs.all` page tokens are sealed with, at start: PAGE_TOKEN_SECRET
// (with PAGE_TOKEN_PREVIOUS_SECRET while rotating); unset in embedded mode, a
// secret generated once and kept in the data directory, so that tokens
// survive a restart; unset with a server, none (the app draws one per process).
import { randomBytes } from "node:crypto";
import { loadOrCreateSecret } from "../auth/index.js";
import type { Config } from "../config/index.js";
import type { AppOptions } from "../app/index.js";

/** The file of the generated secret, in the embedded data directory (CHDB_PATH). */
export const pageTokenSecretFileName = "page-token-secret";

/** The page tokens' keys for the app, and a line for the start-up log saying where they come from. */
export function pageTokenSecrets(config: Config): { secrets: AppOptions["pageTokenSecrets"]; source: string } {
  const { secret, previousSecret } = config.pageTokens;
  if (secret !== undefined) {
    return {
      secrets: { secret, previousSecret },
      source: previousSecret === undefined ? "PAGE_TOKEN_SECRET" : "PAGE_TOKEN_SECRET, rotating",
    };
  }
  if (config.warehouse.kind === "embedded") {
    const stored = loadOrCreateSecret(config.warehouse.path, pageTokenSecretFileName, () =>
      randomBytes(32).toString("base64url"),
    );
    return {
      secrets: { secret: stored.key },
      source: `${stored.created ? "generated, " : ""}stored in ${stored.path}`,
    };
  }
  return { secrets: undefined, source: "drawn for this process: set PAGE_TOKEN_SECRET to keep tokens across restarts" };
}

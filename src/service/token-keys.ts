// The keys signed tokens are verified with, read from the configuration: a
// bad or unreadable key is a ConfigError naming its variable, before the
// warehouse is opened.
import { createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { ConfigError, type CredentialsConfig } from "../config/index.js";
import type { AppOptions } from "../app/index.js";

/** How tokens are verified: JWT_SECRET, JWT_PUBLIC_KEY (PEM, or a file of it) or JWT_JWKS_FILE, and OIDC_ISSUERS. */
export function tokenKeys(credentials: CredentialsConfig): AppOptions["tokens"] {
  const own = ownTokenKeys(credentials);
  if (credentials.oidc === undefined) return own;
  return { ...own, oidc: credentials.oidc };
}

function ownTokenKeys(credentials: CredentialsConfig): AppOptions["tokens"] {
  const read = (name: string, path: string) => {
    try {
      return readFileSync(path, "utf8");
    } catch (error) {
      throw new ConfigError([
        `${name} ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      ]);
    }
  };
  if (credentials.jwtSecret !== undefined) return { secret: credentials.jwtSecret };
  if (credentials.jwtPublicKey !== undefined) {
    const pem = credentials.jwtPublicKey.startsWith("-----BEGIN")
      ? credentials.jwtPublicKey
      : read("JWT_PUBLIC_KEY", credentials.jwtPublicKey);
    try {
      createPublicKey(pem);
    } catch {
      throw new ConfigError(["JWT_PUBLIC_KEY is not a PEM public key (nor the path of a file holding one)"]);
    }
    return { publicKeyPem: pem };
  }
  if (credentials.jwtJwksFile !== undefined) {
    try {
      return {
        jwks: JSON.parse(read("JWT_JWKS_FILE", credentials.jwtJwksFile)) as NonNullable<AppOptions["tokens"]>["jwks"],
      };
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError([`JWT_JWKS_FILE ${credentials.jwtJwksFile} is not JSON`]);
    }
  }
  return undefined;
}

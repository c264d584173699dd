// Secrets an embedded installation keeps in its data directory when the
// configuration gives none (the API key, the page tokens' key): generated
// once, written with mode 0600, and reused on later starts.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const apiKeyFileName = "api-key";

/** A secret kept in a file: its text, whether this start made it, and where it is. */
export interface StoredSecret {
  key: string;
  created: boolean;
  path: string;
}

/** The key stored in `directory`, or undefined when there is none: for a command that calls the service. */
export function readStoredApiKey(directory: string): string | undefined {
  return readSecret(join(directory, apiKeyFileName));
}

/** Reads the stored key from `directory`, creating it first if there is none. */
export function loadOrCreateApiKey(directory: string): StoredSecret {
  return loadOrCreateSecret(directory, apiKeyFileName, () => `sqe_${randomBytes(24).toString("base64url")}`);
}

/**
 * The secret in `directory`/`fileName`, made by `generate` and written first
 * when the file is missing or empty.
 */
export function loadOrCreateSecret(directory: string, fileName: string, generate: () => string): StoredSecret {
  const path = join(directory, fileName);
  const stored = readSecret(path);
  if (stored !== undefined) return { key: stored, created: false, path };
  mkdirSync(directory, { recursive: true });
  const key = generate();
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // in case the file existed empty with wider rights
  return { key, created: true, path };
}

function readSecret(path: string): string | undefined {
  try {
    const key = readFileSync(path, "utf8").trim();
    return key === "" ? undefined : key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

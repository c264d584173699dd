// The API key of an embedded installation that set no API_KEYS: generated
// once, kept in the data directory with mode 0600, and reused on later starts.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const apiKeyFileName = "api-key";

/** The key stored in `directory`, or undefined when there is none: for a command that calls the service. */
export function readStoredApiKey(directory: string): string | undefined {
  try {
    const key = readFileSync(join(directory, apiKeyFileName), "utf8").trim();
    return key === "" ? undefined : key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Reads the stored key from `directory`, creating it first if there is none. */
export function loadOrCreateApiKey(directory: string): { key: string; created: boolean; path: string } {
  const path = join(directory, apiKeyFileName);
  try {
    const key = readFileSync(path, "utf8").trim();
    if (key !== "") return { key, created: false, path };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(directory, { recursive: true });
  const key = `sqe_${randomBytes(24).toString("base64url")}`;
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // in case the file existed empty with wider rights
  return { key, created: true, path };
}

// Scoped API keys from a JSON file (API_KEYS_FILE), stored only as SHA-256
// digests: {"keys": [{"id", "sha256", "endpoints"?, "fixed"?,
// "rate_limit_per_second"?, "rate_limit_burst"?, "import"?, "unmasked"?,
// "max_rows_to_read"?, "max_bytes_to_read"?}]}. The file is read again on
// `reload()` (SIGHUP) and when its content changes (a hash of it, read on each
// poll: a file rewritten in place with the same size and time is noticed); a
// file that does not read keeps the keys in force and says why in one log
// line, and a key removed from the file stops working with the next call.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { type Logger, silentLogger } from "../observability/index.js";
import { type Credential, reservedIdPrefixes } from "./credential.js";
import { burstProblem, rateProblem, readLimitFields, readLimitsOf } from "./credential-limits.js";

export interface KeyFileOptions {
  path: string;
  /** Endpoint names an entry may list. */
  knownEndpoints: ReadonlySet<string>;
  /** Parameter names an entry may fix. */
  knownParameters: ReadonlySet<string>;
  /** Default: silent. */
  logger?: Logger;
  /** How often the file is read and its content compared with the keys in force; 0 turns watching off. Default 2000 ms. */
  pollMs?: number;
  /** Called after the keys in force change (a poll or a reload read new content). Default: nothing. */
  onChange?: () => void;
}

export interface KeyFile {
  /** The credential of the key whose digest is `digest` (SHA-256, lowercase hex), if the file holds it. */
  lookup(digest: string): Credential | undefined;
  /** Reads the file again; false (and the keys in force kept) when it does not read. */
  reload(): boolean;
  /** Keys in force. */
  readonly size: number;
  /** Stops watching the file. */
  close(): void;
}

/** A key file that cannot be read or parsed; the message names the file and the problem. */
export class KeyFileError extends Error {
  override readonly name = "KeyFileError";
}

/** How often the key file is looked at for a change when the options do not say. */
export const defaultKeyFilePollMs = 2000;

/** Opens `options.path`; throws KeyFileError when it does not read at start. */
export function openKeyFile(options: KeyFileOptions): KeyFile {
  const logger = options.logger ?? silentLogger;
  const first = readKeyFileText(options.path);
  let keys = parsed(first, options);
  /** The content the keys in force were read from, and the last problem logged by a poll. */
  let digest = keyDigest(first);
  let lastProblem: string | undefined;
  const pollMs = options.pollMs ?? defaultKeyFilePollMs;
  /** Reads the file; takes its keys when `always` or when its content changed. */
  const read = (always: boolean) => {
    try {
      const text = readKeyFileText(options.path);
      const next = keyDigest(text);
      if (!always && next === digest) return true;
      keys = parsed(text, options);
      digest = next;
      lastProblem = undefined;
      logger.info("API key file read", { path: options.path, keys: keys.size });
      options.onChange?.();
      return true;
    } catch (error) {
      const problem = (error as Error).message;
      // A poll says a problem once, not every pollMs; a reload (SIGHUP) always answers.
      if (always || problem !== lastProblem)
        logger.error("API key file not read; the keys in force stay", { path: options.path, problem });
      lastProblem = problem;
      return false;
    }
  };
  const timer = pollMs > 0 ? setInterval(() => read(false), pollMs) : undefined;
  timer?.unref();
  return {
    lookup: (digest) => keys.get(digest),
    reload: () => read(true),
    get size() {
      return keys.size;
    },
    close: () => clearInterval(timer),
  };
}

/** The SHA-256 of `key` in lowercase hex: how the key file names a key. */
export function keyDigest(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** The largest key file read: far above any real one (a key is some 200 bytes). */
const maxKeyFileBytes = 16 * 1024 * 1024;

function readKeyFileText(path: string): string {
  try {
    // A device or a huge file (a link to /dev/zero, say) would be read whole and end the process.
    const stats = statSync(path);
    if (!stats.isFile()) throw new KeyFileError(`API_KEYS_FILE ${path} is not a regular file`);
    if (stats.size > maxKeyFileBytes)
      throw new KeyFileError(
        `API_KEYS_FILE ${path} is ${stats.size} bytes; a key file may have at most ${maxKeyFileBytes}`,
      );
    return readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof KeyFileError) throw error;
    throw new KeyFileError(
      `API_KEYS_FILE ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

function parsed(text: string, options: KeyFileOptions): Map<string, Credential> {
  try {
    return parseKeyFile(text, options);
  } catch (error) {
    throw new KeyFileError(`API_KEYS_FILE ${options.path}: ${(error as Error).message}`);
  }
}

/** Parses the text of a key file into credentials by digest; throws naming the first problem. */
export function parseKeyFile(
  text: string,
  known: { knownEndpoints: ReadonlySet<string>; knownParameters: ReadonlySet<string> },
): Map<string, Credential> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON (${(error as Error).message})`);
  }
  const entries = isObject(document) ? document.keys : undefined;
  if (!Array.isArray(entries)) throw new Error('expected {"keys": [...]}');
  const byDigest = new Map<string, Credential>();
  const ids = new Set<string>();
  entries.forEach((entry: unknown, index) => {
    const where = `keys[${index}]`;
    if (!isObject(entry)) throw new Error(`${where} is not an object`);
    const { id, sha256, endpoints, fixed, rate_limit_per_second: perSecond, rate_limit_burst: burst } = entry;
    const unknown = Object.keys(entry).filter((k) => !entryFields.has(k));
    if (unknown.length > 0) throw new Error(`${where} has unknown field ${unknown[0]}`);
    if (typeof id !== "string" || !/^[\w.:-]{1,64}$/.test(id))
      throw new Error(`${where}.id must be 1 to 64 letters, digits, _ . : or -`);
    const reserved = reservedIdPrefixes.find((prefix) => id.startsWith(prefix));
    if (reserved !== undefined)
      throw new Error(`${where}.id ${id} must not start with ${reserved}: the service names other callers so`);
    if (ids.has(id)) throw new Error(`${where}.id ${id} is used twice`);
    ids.add(id);
    if (typeof sha256 !== "string" || !/^[0-9a-fA-F]{64}$/.test(sha256))
      throw new Error(`${where}.sha256 must be 64 hex digits`);
    const digest = sha256.toLowerCase();
    if (byDigest.has(digest)) throw new Error(`${where}.sha256 is the digest of another entry's key`);
    const credential: Credential = { id };
    if (endpoints !== undefined) {
      if (!Array.isArray(endpoints) || !endpoints.every((e) => typeof e === "string"))
        throw new Error(`${where}.endpoints must be a list of endpoint names`);
      const unknownEndpoint = endpoints.find((e) => !known.knownEndpoints.has(e));
      if (unknownEndpoint !== undefined) throw new Error(`${where}.endpoints names no endpoint: ${unknownEndpoint}`);
      credential.endpoints = new Set(endpoints as string[]);
    }
    if (fixed !== undefined) {
      if (!isObject(fixed) || !Object.values(fixed).every((v) => typeof v === "string"))
        throw new Error(`${where}.fixed must map parameter names to strings`);
      const unknownParameter = Object.keys(fixed).find((name) => !known.knownParameters.has(name));
      if (unknownParameter !== undefined) throw new Error(`${where}.fixed names no parameter: ${unknownParameter}`);
      credential.fixed = { ...(fixed as Record<string, string>) };
    }
    if (perSecond === undefined && burst !== undefined)
      throw new Error(`${where}.rate_limit_burst needs rate_limit_per_second: a burst is of a rate`);
    if (perSecond !== undefined) {
      if (typeof perSecond !== "number" || !(perSecond >= 0))
        throw new Error(`${where}.rate_limit_per_second must be a number of at least 0`);
      const rate = rateProblem(perSecond, true);
      if (rate !== undefined) throw new Error(`${where}.rate_limit_per_second ${rate}`);
      const burstIs = burst === undefined ? undefined : burstProblem(burst);
      if (burstIs !== undefined) throw new Error(`${where}.rate_limit_burst ${burstIs}`);
      credential.rateLimit = { perSecond, burst: (burst as number | undefined) ?? Math.max(1, 2 * perSecond) };
    }
    const mayImport = entry.import;
    if (mayImport !== undefined && typeof mayImport !== "boolean")
      throw new Error(`${where}.import must be true or false`);
    if (mayImport === true) credential.mayImport = true;
    const { unmasked } = entry;
    if (unmasked !== undefined && typeof unmasked !== "boolean")
      throw new Error(`${where}.unmasked must be true or false`);
    if (unmasked === true) credential.unmasked = true;
    const { limits, problem } = readLimitsOf(entry);
    if (problem !== undefined) throw new Error(`${where}.${problem.field} ${problem.description}`);
    if (limits !== undefined) credential.readLimits = limits;
    byDigest.set(digest, credential);
  });
  return byDigest;
}

const entryFields = new Set([
  "id",
  "sha256",
  "endpoints",
  "fixed",
  "rate_limit_per_second",
  "rate_limit_burst",
  "import",
  "unmasked",
  ...Object.keys(readLimitFields),
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

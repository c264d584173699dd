// `npm run import` when a running service holds the embedded data directory,
// or `--url` names one: the file goes to the service's import route (the
// service of the configuration, `HOST` and `PORT`, unless `--url` says),
// with a key it accepts, and the service's answer is said as the command's.
// A file larger than the service's bound goes in parts (import-parts.ts).
// Each post of a file carries an Idempotency-Key made of its bytes, so that
// running the command again after a failure stores no part twice.
import { createHash } from "node:crypto";
import { readStoredApiKey } from "../auth/index.js";
import type { Config } from "../config/index.js";
import type { LogTable } from "../warehouse/index.js";
import { postImport, refusalMessage } from "./import-client.js";
import { badLinesOf, importParts } from "./import-parts.js";
import { type ImportFile, readFromStart } from "./import-source.js";

export interface ImportThroughServiceOptions {
  url: string;
  key: string | undefined;
  table: string;
  /** A file opened once (openImportFile) and its path, or standard input. */
  source: { file: ImportFile; path: string } | { stdin: AsyncIterable<Buffer> };
  /** One line of progress or of a bad line. */
  say: (line: string) => void;
  /** The service's MAX_IMPORT_BYTES: a larger file is checked here, then sent in parts under it. Default: one post. */
  maxBytes?: number;
}

/** Sends the source to the service; throws with the service's refusal, its bad lines said first. */
export async function importThroughService(options: ImportThroughServiceOptions): Promise<{ inserted: number }> {
  const { url, table, source, say } = options;
  const size = "file" in source ? source.file.stats.size : undefined;
  if ("file" in source && options.maxBytes !== undefined && size! > options.maxBytes)
    return importInParts({ ...options, source, maxBytes: options.maxBytes });
  const name = "file" in source ? source.path : "standard input";
  // A line at each tenth of a file, or each 4 MiB of standard input.
  const step = size === undefined ? 4 * 1024 * 1024 : Math.max(1, Math.ceil(size / 10));
  let said = 0;
  // Chunks are taken before the connection opens: nothing is said of them until a service is there.
  let connected = false;
  const answer = await postImport({
    url,
    table,
    key: options.key,
    body: "file" in source ? readFromStart(source.file) : source.stdin,
    size,
    idempotencyKey: "file" in source ? partKey(1, await digestOf(readFromStart(source.file))) : undefined,
    onConnect: () => {
      connected = true;
      say(`sending ${name} to the service at ${url}${size === undefined ? "" : ` (${size} bytes)`}`);
    },
    onProgress: (sent) => {
      if (!connected || Math.floor(sent / step) === Math.floor(said / step)) return;
      said = sent;
      say(size === undefined ? `${sent} bytes sent` : `${sent} of ${size} bytes sent`);
    },
  });
  if (answer.ok) return { inserted: answer.inserted };
  for (const { field, description } of answer.details) say(`${field}: ${description}`);
  throw new Error(refusalMessage(answer, url, table));
}

/** A file past the service's bound: checked whole here, then posted in parts of whole lines. */
async function importInParts(
  options: ImportThroughServiceOptions & { source: { file: ImportFile; path: string }; maxBytes: number },
): Promise<{ inserted: number }> {
  const { url, table, source, say, maxBytes } = options;
  const size = source.file.stats.size;
  say(`checking ${source.path} (${size} bytes, past the service's ${maxBytes} a post)`);
  const bad = await badLinesOf(source.file, table as LogTable);
  if (bad.length > 0) {
    for (const line of bad) say(line);
    throw new Error(`${source.path} has bad lines; nothing was sent`);
  }
  let inserted = 0;
  let sent = 0;
  let part = 0;
  for await (const body of importParts(source.file, maxBytes)) {
    part += 1;
    const answer = await postImport({
      url,
      table,
      key: options.key,
      body: (async function* () {
        yield body;
      })(),
      size: body.length,
      idempotencyKey: partKey(part, createHash("sha256").update(body).digest("hex")),
      onConnect: () => part === 1 && say(`sending ${source.path} to the service at ${url} in parts`),
    });
    if (!answer.ok) {
      for (const { field, description } of answer.details) say(`part ${part}, ${field}: ${description}`);
      const stored = part === 1 ? "" : `; the ${part - 1} parts before it, ${inserted} rows, are stored`;
      throw new Error(`${refusalMessage(answer, url, table)} at part ${part}${stored}`);
    }
    inserted += answer.inserted;
    sent += body.length;
    say(`part ${part}: ${answer.inserted} rows imported, ${sent} bytes of lines sent`);
  }
  return { inserted };
}

/** The Idempotency-Key of a file's `part` (from 1) whose bytes have SHA-256 `digest`. */
export function partKey(part: number, digest: string): string {
  return `npm-import-part-${part}-${digest}`;
}

async function digestOf(chunks: AsyncIterable<Buffer>): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of chunks) hash.update(chunk);
  return hash.digest("hex");
}

/** The configured service's URL; a wildcard `HOST` is reached on loopback. */
export function configuredServiceUrl(config: Pick<Config, "host" | "port">): string {
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host === "::" ? "::1" : config.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
}

/** The first key of API_KEYS, else the key the service stored in its embedded data directory, else none. */
export function serviceKey(config: Pick<Config, "apiKeys" | "warehouse">): string | undefined {
  if (config.apiKeys.length > 0) return config.apiKeys[0];
  return config.warehouse.kind === "embedded" ? readStoredApiKey(config.warehouse.path) : undefined;
}

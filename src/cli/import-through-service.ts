// `npm run import` when a running service holds the embedded data directory,
// or `--url` names one: the file goes to the service's import route (the
// service of the configuration, `HOST` and `PORT`, unless `--url` says),
// with a key it accepts, and the service's answer is said as the command's.
import { readStoredApiKey } from "../auth/index.js";
import type { Config } from "../config/index.js";
import { postImport, refusalMessage } from "./import-client.js";
import { type ImportFile, readFromStart } from "./import-source.js";

export interface ImportThroughServiceOptions {
  url: string;
  key: string | undefined;
  table: string;
  /** A file opened once (openImportFile) and its path, or standard input. */
  source: { file: ImportFile; path: string } | { stdin: AsyncIterable<Buffer> };
  /** One line of progress or of a bad line. */
  say: (line: string) => void;
}

/** Sends the source to the service; throws with the service's refusal, its bad lines said first. */
export async function importThroughService(options: ImportThroughServiceOptions): Promise<{ inserted: number }> {
  const { url, table, source, say } = options;
  const size = "file" in source ? source.file.stats.size : undefined;
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

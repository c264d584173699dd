// A JSON document from an identity provider (discovery, JWKS): over HTTPS
// (plain HTTP to loopback only), with a timeout, a size bound and no
// redirects, and how long the provider's `Cache-Control` says it stays fresh.

/** A fetched document and, when its `Cache-Control` says, how long it stays fresh (0: ask again each time). */
export interface FetchedJson {
  value: unknown;
  maxAgeMs?: number;
}

/** Fetches one JSON document; rejects with a message naming the URL and what went wrong. */
export type JsonFetcher = (url: string) => Promise<FetchedJson>;

export interface JsonFetcherOptions {
  /** The whole fetch, body included, must end within this. Default 5000 ms. */
  timeoutMs?: number;
  /** Largest body read. Default 256 KiB. */
  maxBytes?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
}

export const defaultFetchTimeoutMs = 5_000;
export const defaultMaxDocumentBytes = 256 * 1024;

/** Why `url` may not be fetched from a provider (it must be HTTPS, or HTTP to a loopback host), or undefined. */
export function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a URL";
  }
  if (parsed.protocol === "https:") return undefined;
  if (parsed.protocol === "http:" && isLoopback(parsed.hostname)) return undefined;
  return "must be https (plain http only for a loopback host)";
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** The freshness `Cache-Control` gives, in ms: `max-age`, 0 for `no-store` or `no-cache`, undefined when it says neither. */
export function cacheLifetimeMs(cacheControl: string | null): number | undefined {
  if (cacheControl === null) return undefined;
  const directives = cacheControl
    .toLowerCase()
    .split(",")
    .map((d) => d.trim());
  if (directives.includes("no-store") || directives.includes("no-cache")) return 0;
  for (const directive of directives) {
    const maxAge = /^max-age\s*=\s*"?(\d+)"?$/.exec(directive);
    if (maxAge !== null) return Number(maxAge[1]) * 1000;
  }
  return undefined;
}

export function createJsonFetcher(options: JsonFetcherOptions = {}): JsonFetcher {
  const timeoutMs = options.timeoutMs ?? defaultFetchTimeoutMs;
  const maxBytes = options.maxBytes ?? defaultMaxDocumentBytes;
  const fetchFn = options.fetch ?? fetch;
  return async (url) => {
    const problem = urlProblem(url);
    if (problem !== undefined) throw new Error(`${url} ${problem}`);
    const signal = AbortSignal.timeout(timeoutMs);
    let text: string;
    let response: Response;
    try {
      response = await fetchFn(url, { signal, redirect: "error", headers: { accept: "application/json" } });
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new Error(`${url} answered ${response.status}`);
      }
      text = await boundedText(response, maxBytes, url);
    } catch (error) {
      if (signal.aborted) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
      throw error instanceof Error && error.message.startsWith(url)
        ? error
        : new Error(`${url} could not be fetched: ${(error as Error).message}`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new Error(`${url} is not JSON`);
    }
    const maxAgeMs = cacheLifetimeMs(response.headers.get("cache-control"));
    return maxAgeMs === undefined ? { value } : { value, maxAgeMs };
  };
}

/** The body as text, refused as soon as it passes `maxBytes` (by its length header or by what arrives). */
async function boundedText(response: Response, maxBytes: number, url: string): Promise<string> {
  const tooLarge = () => new Error(`${url} is larger than ${maxBytes} bytes`);
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (response.body === null) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

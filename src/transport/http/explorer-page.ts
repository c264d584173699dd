// The explorer at GET / (docs/explorer.md): the page and its script and
// style, built from web/ into dist/web/ by the build (with gzip and Brotli
// copies made there), read once and served from memory. It holds no data and
// needs no key; its Content-Security-Policy allows no inline script, no eval,
// nothing from another host, and no framing.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { encodingFromAcceptEncoding } from "./content-negotiation.js";
import { type Call, type CallHandler, pathOf, replyOn } from "../node-http/index.js";
import { sendEmpty } from "./respond.js";

export interface ExplorerPageOptions {
  /** The built page: index.html, explorer.js and explorer.css (dist/web/). */
  directory: string;
  /** Told once when the directory holds no built page. Default: nothing. */
  onMissing?: (directory: string) => void;
}

/** The policy of the page: its own script and style only, calls to its own origin, never framed. */
const explorerContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const files: Record<string, { name: string; type: string }> = {
  "/": { name: "index.html", type: "text/html; charset=utf-8" },
  "/explorer.js": { name: "explorer.js", type: "text/javascript; charset=utf-8" },
  "/explorer.css": { name: "explorer.css", type: "text/css; charset=utf-8" },
};

interface Asset {
  type: string;
  etag: string;
  identity: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

/**
 * Puts the explorer in front of `next`: GET and HEAD of `/`, `/explorer.js`
 * and `/explorer.css` are answered here; everything else goes on.
 */
export function withExplorer(next: CallHandler, options: ExplorerPageOptions): CallHandler {
  const assets = readAssets(options.directory);
  if (assets === undefined) options.onMissing?.(options.directory);
  return (call) => {
    const method = call.head.method;
    if (method !== "GET" && method !== "HEAD") return next(call);
    const path = pathOf(call.head.url);
    if (files[path] === undefined) return next(call);
    if (assets === undefined) {
      const body = Buffer.from("the explorer is not built: run npm run build\n");
      return replyOn(call.exchange(), 503, { "content-type": "text/plain; charset=utf-8", ...security }, body);
    }
    serve(call, assets.get(path)!);
  };
}

const security = {
  "content-security-policy": explorerContentSecurityPolicy,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

function serve(call: Call, asset: Asset): void {
  const exchange = call.exchange();
  const [request, response] = exchange;
  const headers: Record<string, string> = {
    ...security,
    "content-type": asset.type,
    etag: asset.etag,
    // Revalidated on every load: a new build is seen at once, an unchanged one costs a 304.
    "cache-control": "no-cache",
    vary: call.cors.vary("Accept-Encoding"),
  };
  if (request.headers["if-none-match"] === asset.etag) return sendEmpty(response, 304, headers);
  const accepted = encodingFromAcceptEncoding(request.headers["accept-encoding"] ?? "");
  // br (3) when asked for and made; gzip for gzip, zstd (2) or br without a Brotli copy.
  let body = asset.identity;
  if (accepted === 3 && asset.br !== undefined) {
    body = asset.br;
    headers["content-encoding"] = "br";
  } else if (accepted !== 0 && asset.gzip !== undefined) {
    body = asset.gzip;
    headers["content-encoding"] = "gzip";
  }
  headers["content-length"] = String(body.length);
  replyOn(exchange, 200, headers, body);
}

/** The built files, or undefined when one is missing (the build has not run). */
function readAssets(directory: string): Map<string, Asset> | undefined {
  const assets = new Map<string, Asset>();
  for (const [path, { name, type }] of Object.entries(files)) {
    const file = join(directory, name);
    if (!existsSync(file)) return undefined;
    const identity = readFileSync(file);
    const etag = `"${createHash("sha256").update(identity).digest("base64url").slice(0, 22)}"`;
    const copy = (suffix: string) => (existsSync(file + suffix) ? readFileSync(file + suffix) : undefined);
    assets.set(path, { type, etag, identity, gzip: copy(".gz"), br: copy(".br") });
  }
  return assets;
}

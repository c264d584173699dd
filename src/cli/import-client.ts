// `npm run import` through a running service: the NDJSON streamed as the body
// of `POST /api/import/<table>`, and the service's answer read back, either
// the rows inserted or its error body (bad lines named by number).
import { once } from "node:events";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

export interface ServiceImportOptions {
  /** The service, e.g. `http://127.0.0.1:8080`. */
  url: string;
  table: string;
  /** Sent as `X-API-KEY`; without one the service answers unauthenticated. */
  key?: string;
  body: AsyncIterable<Buffer>;
  /** The body's length when known (a file): sent as Content-Length. Default: chunked. */
  size?: number;
  /** Sent as `Idempotency-Key`: the same post sent again stores nothing twice. Default: none. */
  idempotencyKey?: string;
  /** Told when the connection opens: a service is there. Default: nothing. */
  onConnect?: () => void;
  /** Told the bytes sent so far after each chunk. Default: nothing. */
  onProgress?: (sent: number) => void;
}

/** The service's answer: the rows inserted, or its error body's code, message and details. */
export type ServiceAnswer =
  | { ok: true; inserted: number }
  | { ok: false; status: number; code: string; message: string; details: { field: string; description: string }[] };

/** Nothing answers at the service's address: nothing was sent, nothing inserted. */
export class ServiceUnreachableError extends Error {
  override readonly name = "ServiceUnreachableError";
}

/** Errors of a connection that never opened: no service listens there. */
const unreachableCodes = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/** Largest answer read: a far larger one is not the service's. */
const maxAnswerBytes = 1024 * 1024;

/** Posts `options.body` to the service's import route; throws ServiceUnreachableError when nothing answers. */
export function postImport(options: ServiceImportOptions): Promise<ServiceAnswer> {
  const target = new URL(`api/import/${encodeURIComponent(options.table)}`, withSlash(options.url));
  const headers: Record<string, string | number> = { "content-type": "application/x-ndjson" };
  if (options.key !== undefined) headers["x-api-key"] = options.key;
  if (options.size !== undefined) headers["content-length"] = options.size;
  if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey;
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(target, { method: "POST", headers });
    let answered = false;
    // A socket kept alive from an earlier request is connected already.
    request.once("socket", (socket) =>
      socket.connecting ? socket.once("connect", () => options.onConnect?.()) : options.onConnect?.(),
    );
    request.on("response", (response) => {
      answered = true;
      readAnswer(response).then(resolve, reject);
    });
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (answered) return;
      reject(
        unreachableCodes.has(error.code ?? "")
          ? new ServiceUnreachableError(`no service answers at ${options.url} (${error.code})`)
          : new Error(`the connection to the service at ${options.url} broke: ${error.message}`),
      );
    });
    void (async () => {
      let sent = 0;
      for await (const chunk of options.body) {
        // An answer before the whole body (a refused key, say) ends the sending.
        if (answered) break;
        sent += chunk.length;
        if (!request.write(chunk)) await once(request, "drain");
        options.onProgress?.(sent);
      }
      request.end();
    })().catch((error: unknown) => request.destroy(error as Error));
  });
}

/** What the service answered: `{"inserted": N}`, or `{"error": {code, message, details}}`. */
async function readAnswer(response: IncomingMessage): Promise<ServiceAnswer> {
  const status = response.statusCode ?? 0;
  const parts: Buffer[] = [];
  let length = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > maxAnswerBytes) break;
    parts.push(chunk);
  }
  const text = Buffer.concat(parts).toString("utf8");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const inserted = (body as { inserted?: unknown } | undefined)?.inserted;
  if (status === 200 && typeof inserted === "number") return { ok: true, inserted };
  const error = (body as { error?: Record<string, unknown> } | undefined)?.error;
  const details = Array.isArray(error?.details) ? (error.details as { field: string; description: string }[]) : [];
  return {
    ok: false,
    status,
    code: typeof error?.code === "string" ? error.code : `http ${status}`,
    message: typeof error?.message === "string" ? error.message : text.slice(0, 200).trim(),
    details: details.filter((d) => typeof d?.field === "string" && typeof d.description === "string"),
  };
}

/** What the command says of a refusal, with what to do about it. */
export function refusalMessage(answer: Extract<ServiceAnswer, { ok: false }>, url: string, table: string): string {
  const what = `${answer.code}: ${answer.message}`;
  if (answer.status === 401) return `the service at ${url} refused the key (${what}); set API_KEYS to a key it accepts`;
  if (answer.status === 403)
    return `the service at ${url} refused the import (${what}); use a key with the import scope (docs/credentials.md)`;
  if (answer.status === 404) return `the service at ${url} has no import route for ${table} (${what})`;
  return `the service at ${url} refused the import (${what})`;
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}

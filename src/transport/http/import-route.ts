// POST /api/import/<table> (docs/log-tables.md, Importing): NDJSON rows in a
// log table's columns, all or nothing, from a caller with the import scope
// (checked before a byte of the body is read), of its fixed project only,
// stored once however often it is sent with one Idempotency-Key; then the
// cached results of the saved queries that read the table are computed
// again, the answer waiting for that a bounded time, so that the caller's
// next call sees the rows.
import { Code, ConnectError } from "@connectrpc/connect";
import { assertImportScope, type Credential } from "../../auth/index.js";
import type { ResultCache } from "../../cache/index.js";
import type { ComputedResponse, EndpointRegistry } from "../../endpoints/index.js";
import type { Clock, Logger } from "../../observability/index.js";
import {
  defaultMaxFutureSeconds,
  importRows,
  latestTimestamp,
  logTables,
  type WarehouseClient,
} from "../../warehouse/index.js";
import { type Call, pathOf, sendContinue } from "../call/index.js";
import { sendError } from "./error-body.js";
import { createImportAdmission } from "./import-admission.js";
import { createImportRefreshes } from "./import-refresh.js";
import {
  defaultImportMinBytesPerSecond,
  defaultImportUploadGraceMs,
  isSlowUpload,
  withUploadFloor,
} from "./import-upload-floor.js";
import { sendJson } from "./respond.js";

export interface ImportRouteOptions {
  /** Where the rows go. */
  client: Pick<WarehouseClient, "insert">;
  registry: EndpointRegistry;
  /** Holds the results refreshed after an import. */
  cache: Pick<ResultCache<ComputedResponse>, "refreshWhere">;
  /** `MAX_IMPORT_BYTES`: the largest body. */
  maxBytes: number;
  /** `MAX_IMPORTS_RUNNING`: imports at once, all callers together (one per credential). Default 2. */
  maxRunning?: number;
  /** How long the answer waits for the refresh of the table's cached results, which goes on past it. Default 2000 ms. */
  refreshWaitMs?: number;
  /** `IMPORT_REFRESH_SECONDS`, in ms: the least time between two refreshes of one table's cached results. Default 1000 ms. */
  refreshIntervalMs?: number;
  /** `IMPORT_MAX_FUTURE_SECONDS`: how far past now a row's timestamp may be. Default 300. */
  maxFutureSeconds?: number;
  /** `IMPORT_MIN_BYTES_PER_SECOND`: the slowest upload kept past the grace; 0: any. Default 16 KiB. */
  minBytesPerSecond?: number;
  /** How long an upload may be slower than `minBytesPerSecond`. Default 10,000 ms. */
  uploadGraceMs?: number;
  /** Reads now for the latest timestamp allowed. Default: the system clock. */
  clock?: Clock;
  logger: Logger;
}

/** The import route of an authenticated call. */
export type ImportRoute = (call: Call, credential: Credential) => void;

/** What an admitted call asks: the table, and the caller's Idempotency-Key when sent. */
interface AskedImport {
  table: string;
  key?: string;
}

/** The path prefix of the route. */
export const importPathPrefix = "/api/import/";

export function createImportRoute(options: ImportRouteOptions): ImportRoute {
  const { client, registry, cache, maxBytes, logger } = options;
  const admission = createImportAdmission(options.maxRunning);
  const clock = options.clock ?? Date.now;
  const maxFutureSeconds = options.maxFutureSeconds ?? defaultMaxFutureSeconds;
  const floor = {
    bytesPerSecond: options.minBytesPerSecond ?? defaultImportMinBytesPerSecond,
    graceMs: options.uploadGraceMs ?? defaultImportUploadGraceMs,
  };
  /** The saved queries reading each table, by the names their cache policies carry. */
  const readers = new Map<string, Set<string>>(
    logTables.map((table) => [
      table,
      new Set(registry.endpoints.filter((e) => e.tablesRead.has(table)).map((e) => e.definition.name)),
    ]),
  );
  const refreshes = createImportRefreshes(
    (table) => {
      const names = readers.get(table)!;
      return cache.refreshWhere((_key, policy) => names.has(policy.label ?? ""));
    },
    { waitMs: options.refreshWaitMs, intervalMs: options.refreshIntervalMs, logger },
  );

  /** A refusal before the body is read, else the table and the caller's Idempotency-Key. */
  function admitted(call: Call, credential: Credential): AskedImport {
    assertImportScope(credential);
    const name = pathOf(call.head.url).slice(importPathPrefix.length);
    const table = (logTables as readonly string[]).includes(name) ? name : undefined;
    if (table === undefined) throw new ConnectError(`no such table: ${name.slice(0, 64)}`, Code.NotFound);
    const type = (call.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "" && type !== "application/x-ndjson")
      throw new ConnectError("content-type must be application/x-ndjson", Code.InvalidArgument);
    if (Number(call.get("content-length") ?? 0) > maxBytes) throw bodyTooLarge(maxBytes);
    return { table, key: idempotencyKey(call) };
  }

  async function serve(call: Call, credential: Credential, asked: AskedImport, release: () => void): Promise<void> {
    const { table, key } = asked;
    const exchange = call.exchange();
    const abort = new AbortController();
    const [request, response] = exchange;
    // Admitted: a client waiting on `Expect: 100-continue` may send its body now.
    sendContinue(request, response);
    const gone = () => {
      if (!response.writableFinished) abort.abort(new ConnectError("the caller went away", Code.Canceled));
    };
    response.once("close", gone);
    try {
      const { inserted } = await importRows({
        client,
        table,
        body: withUploadFloor(request, floor),
        maxBytes,
        bounds: { latest: latestTimestamp(clock(), maxFutureSeconds) },
        project: credential.fixed?.project,
        idempotency: key === undefined ? undefined : { key, caller: credential.id },
        signal: abort.signal,
      });
      if (inserted > 0 && readers.get(table)!.size > 0) await refreshes.after(table);
      sendJson(exchange, 200, { inserted }, { "x-request-id": call.requestId });
    } catch (error) {
      if (!(error instanceof ConnectError)) logger.error("import failed", { table, requestId: call.requestId, error });
      if (response.headersSent || abort.signal.aborted) return;
      sendError(exchange, call.requestId, error, httpStatusOf(error));
    } finally {
      release();
      response.off("close", gone);
    }
  }

  return (call, credential) => {
    let asked: AskedImport;
    try {
      asked = admitted(call, credential);
    } catch (error) {
      return sendError(call.exchange(), call.requestId, error, httpStatusOf(error));
    }
    let release: () => void;
    try {
      release = admission.admit(credential.id, call.clientAddress);
    } catch (error) {
      return sendError(call.exchange(), call.requestId, error);
    }
    void serve(call, credential, asked, release);
  };
}

/** HTTP's own status where the code's would mislead: 413 for a body too large, 408 for one too slow. */
function httpStatusOf(error: unknown): { status?: number } {
  if (isSlowUpload(error)) return { status: 408 };
  return error instanceof ConnectError && error.code === Code.ResourceExhausted ? { status: 413 } : {};
}

/** The `Idempotency-Key` header: 1 to 255 visible ASCII characters, else INVALID_ARGUMENT naming it. */
function idempotencyKey(call: Call): string | undefined {
  const key = call.get("idempotency-key");
  if (key === null || key === undefined) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(key))
    throw new ConnectError("Idempotency-Key must be 1 to 255 visible ASCII characters", Code.InvalidArgument);
  return key;
}

/** A body larger than MAX_IMPORT_BYTES: 413, with the code importRows gives. */
function bodyTooLarge(maxBytes: number): ConnectError {
  return new ConnectError(`the body is larger than ${maxBytes} bytes (MAX_IMPORT_BYTES)`, Code.ResourceExhausted);
}

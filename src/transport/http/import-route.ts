// POST /api/import/<table> (docs/log-tables.md, Importing): NDJSON rows in a
// log table's columns, all or nothing, from a caller with the import scope
// (checked before a byte of the body is read); then the cached results of
// the saved queries that read the table are computed again, the answer
// waiting for that a bounded time, so that the caller's next call sees the rows.
import { Code, ConnectError } from "@connectrpc/connect";
import { assertImportScope, type Credential } from "../../auth/index.js";
import type { ResultCache } from "../../cache/index.js";
import type { ComputedResponse, EndpointRegistry } from "../../endpoints/index.js";
import type { Logger } from "../../observability/index.js";
import { importRows, logTables, type WarehouseClient } from "../../warehouse/index.js";
import { type Call, pathOf, sendContinue } from "../node-http/index.js";
import { sendError } from "./error-body.js";
import { createImportAdmission } from "./import-admission.js";
import { createImportRefreshes } from "./import-refresh.js";
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
  logger: Logger;
}

/** The import route of an authenticated call. */
export type ImportRoute = (call: Call, credential: Credential) => void;

/** The path prefix of the route. */
export const importPathPrefix = "/api/import/";

export function createImportRoute(options: ImportRouteOptions): ImportRoute {
  const { client, registry, cache, maxBytes, logger } = options;
  const admission = createImportAdmission(options.maxRunning);
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
    { waitMs: options.refreshWaitMs, logger },
  );

  /** A refusal before the body is read, else the table. */
  function admitted(call: Call, credential: Credential): string {
    assertImportScope(credential);
    const name = pathOf(call.head.url).slice(importPathPrefix.length);
    const table = (logTables as readonly string[]).includes(name) ? name : undefined;
    if (table === undefined) throw new ConnectError(`no such table: ${name.slice(0, 64)}`, Code.NotFound);
    const type = (call.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "" && type !== "application/x-ndjson")
      throw new ConnectError("content-type must be application/x-ndjson", Code.InvalidArgument);
    if (Number(call.get("content-length") ?? 0) > maxBytes) throw bodyTooLarge(maxBytes);
    return table;
  }

  async function serve(call: Call, table: string, release: () => void): Promise<void> {
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
      const { inserted } = await importRows({ client, table, body: request, maxBytes, signal: abort.signal });
      if (inserted > 0 && readers.get(table)!.size > 0) await refreshes.after(table);
      sendJson(exchange, 200, { inserted }, { "x-request-id": call.requestId });
    } catch (error) {
      if (!(error instanceof ConnectError)) logger.error("import failed", { table, requestId: call.requestId, error });
      if (response.headersSent || abort.signal.aborted) return;
      const tooLarge = error instanceof ConnectError && error.code === Code.ResourceExhausted;
      sendError(exchange, call.requestId, error, tooLarge ? { status: 413 } : {});
    } finally {
      release();
      response.off("close", gone);
    }
  }

  return (call, credential) => {
    let table: string;
    try {
      table = admitted(call, credential);
    } catch (error) {
      const tooLarge = error instanceof ConnectError && error.code === Code.ResourceExhausted;
      return sendError(call.exchange(), call.requestId, error, tooLarge ? { status: 413 } : {});
    }
    let release: () => void;
    try {
      release = admission.admit(credential.id);
    } catch (error) {
      return sendError(call.exchange(), call.requestId, error);
    }
    void serve(call, table, release);
  };
}

/** A body larger than MAX_IMPORT_BYTES: 413, with the code importRows gives. */
function bodyTooLarge(maxBytes: number): ConnectError {
  return new ConnectError(`the body is larger than ${maxBytes} bytes (MAX_IMPORT_BYTES)`, Code.ResourceExhausted);
}

// The embedded engine as a client that survives the engine failing: when
// chDB cannot open its data directory (another process holds it, say) or its
// session breaks, calls fail as unreachable and the engine is opened again in
// the background, so the service comes back by itself.
import type { ClickHouseClient } from "@clickhouse/client";
import { causeChain } from "../errors/index.js";
import type { Logger } from "../observability/index.js";
import { DataDirectoryHeldError } from "./data-directory-lock.js";
import { createFailureStreak } from "./failure-streak.js";

/** The part of @clickhouse/client the service uses; a ClickHouseClient is one. */
export type WarehouseClient = Pick<ClickHouseClient, "query" | "command" | "insert" | "ping" | "close">;

/** Thrown while the engine is not open, with why as its `cause`; the executor reads it as UNAVAILABLE. */
export class WarehouseClosedError extends Error {
  override readonly name = "WarehouseClosedError";
  constructor(cause?: unknown) {
    super(`the embedded warehouse is not open${cause instanceof Error ? `: ${cause.message}` : ""}`, { cause });
  }
}

export interface ReopeningClientOptions {
  /** Opens the engine; throws when it cannot. */
  open: () => Promise<WarehouseClient>;
  logger: Logger;
  /** Wait between tries to open. Default 2000 ms (`WAREHOUSE_RETRY_SECONDS` makes it shorter: docs/configuration.md). */
  retryMs?: number;
}

export interface ReopeningClient extends WarehouseClient {
  readonly isOpen: boolean;
}

export function createReopeningClient(options: ReopeningClientOptions): ReopeningClient {
  const { logger } = options;
  const retryMs = options.retryMs ?? 2000;
  let current: WarehouseClient | undefined;
  let opening: Promise<WarehouseClient | undefined> | undefined;
  let closed = false;
  let nextTryAt = 0;
  let lastError: unknown;
  /** Whether the engine was ever open, for the line saying it opened after failed tries. */
  let wasOpen = false;
  // Said once per cause, however many tries fail for it (failure-streak.ts).
  const streak = createFailureStreak(logger);

  const tryOpen = () =>
    (opening ??= options
      .open()
      .then(
        (client) => {
          const failedTries = streak.end();
          if (failedTries > 0)
            logger.info(wasOpen ? "embedded warehouse open again" : "embedded warehouse open", { failedTries });
          wasOpen = true;
          lastError = undefined;
          current = client;
          return client;
        },
        (error: unknown) => {
          if (error instanceof DataDirectoryHeldError) {
            streak.failed(error, {
              msg: "another process holds the data directory; answering 503 until it lets go",
              fields: { path: error.path, pid: error.pid, retryInMs: retryMs },
              withError: false,
            });
          } else {
            streak.failed(error, {
              msg: "embedded warehouse cannot open; answering 503 and trying again",
              fields: { retryInMs: retryMs },
            });
          }
          lastError = error;
          nextTryAt = Date.now() + retryMs;
          return undefined;
        },
      )
      .finally(() => (opening = undefined)));

  const timer = setInterval(() => {
    if (current === undefined && !closed) void tryOpen();
  }, retryMs);
  timer.unref();

  async function use<T>(call: (client: WarehouseClient) => Promise<T>): Promise<T> {
    // Calls between tries fail at once instead of each trying to open the engine.
    const client = current ?? (Date.now() >= nextTryAt ? await tryOpen() : undefined);
    if (client === undefined) throw new WarehouseClosedError(lastError);
    try {
      return await call(client);
    } catch (error) {
      if (isEmbeddedEngineGone(error) && current === client) {
        // The session broke: let go of it, the next call or the timer opens a new one.
        current = undefined;
        void client.close().catch(() => {});
      }
      throw error;
    }
  }

  void tryOpen();
  return {
    get isOpen() {
      return current !== undefined;
    },
    query: ((params: Parameters<ClickHouseClient["query"]>[0]) =>
      use((c) => c.query(params))) as ClickHouseClient["query"],
    command: (params) => use((c) => c.command(params)),
    insert: ((params: Parameters<ClickHouseClient["insert"]>[0]) =>
      use((c) => c.insert(params))) as ClickHouseClient["insert"],
    ping: (params) =>
      use((c) => c.ping(params)).catch((error: unknown) => ({ success: false as const, error: error as Error })),
    async close() {
      closed = true;
      clearInterval(timer);
      await opening;
      await current?.close();
      current = undefined;
    },
  };
}

/**
 * Whether chDB says its session is gone or could not open: a
 * ChdbConnectionError or ChdbClosedError (by their `code`), anywhere in the
 * cause chain since the connection wraps them in a ClickHouseError.
 */
export function isEmbeddedEngineGone(error: unknown): boolean {
  return causeChain(error).some((e) => {
    const code = (e as { code?: unknown }).code;
    return code === "CHDB_CONNECTION" || code === "CHDB_CLOSED";
  });
}

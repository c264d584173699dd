// The one way rows go into a log table: a single INSERT carrying its own
// insert_deduplication_token in the statement. The log tables keep a
// deduplication window (migration 0006), so an insert sent again with the
// token it had is dropped where it was stored; an insert without a key of
// its own gets a token no other insert has, so that identical rows sent
// twice on purpose are both stored. The token travels in the statement
// rather than as `clickhouse_settings`, which the client's own insert on the
// embedded engine turns into `SET` statements that stay on its one session
// (embedded-insert.ts puts either in the statement).
import { createHash, randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import type { ShippedRow } from "./demo-data.js";
import type { LogTable } from "./log-tables.js";
import type { WarehouseClient } from "./reopening-client.js";

export interface LogInsert {
  table: LogTable;
  /** The rows, as an array or an object-mode stream of them. */
  values: readonly ShippedRow[] | readonly object[] | Readable;
  /** The insert's deduplication token (`deduplicationToken`); default: one of its own. */
  token?: string;
  signal?: AbortSignal;
}

/** Inserts `values` into the log table in one statement (docs/log-tables.md, Importing the same rows twice). */
export async function insertLogRows(client: Pick<WarehouseClient, "insert">, insert: LogInsert): Promise<void> {
  const token = insert.token ?? randomUUID();
  if (!/^[0-9a-zA-Z-]+$/.test(token)) throw new Error("a deduplication token is hex digits, letters and dashes");
  await client.insert({
    table: `${insert.table} SETTINGS insert_deduplication_token = '${token}'`,
    values: insert.values as ShippedRow[],
    format: "JSONEachRow",
    abort_signal: insert.signal,
  });
}

/**
 * The token of an import sent with `Idempotency-Key: key`: the same for the
 * same caller, table, key and body bytes (their SHA-256, `bodyDigest`), so
 * that a retry is dropped and another body under a reused key is not.
 */
export function deduplicationToken(parts: { caller: string; table: string; key: string; bodyDigest: string }): string {
  const hash = createHash("sha256");
  for (const part of [parts.caller, parts.table, parts.key, parts.bodyDigest]) hash.update(part).update("\0");
  return hash.digest("hex");
}

// What the executor runs and what it answers with: a saved query, its
// parameter values and the rows the warehouse sends back.
import type { ReadLimits } from "./read-limits.js";

/** A saved query as the executor needs it. */
export interface SavedQuery {
  /** Endpoint name, e.g. `usage.api-counts`; in logs and metrics. */
  name: string;
  /**
   * ClickHouse SQL with `{name:Type}` placeholders, `{now:DateTime64(6, 'UTC')}`
   * among them, and no SETTINGS clause of its own (the executor adds one).
   */
  sql: string;
  /** At most this many rows are returned, whatever the SQL does. */
  maxRows: number;
  /** The parameter that is an RE2 regular expression, if any. */
  regexpParameter?: string;
  /** Rows and bytes the warehouse may read for this run of it (read-limits.ts). Default: none. */
  readLimits?: ReadLimits;
}

/** A query parameter value. Instants travel as `YYYY-MM-DD hh:mm:ss.ffffff` text. */
export type QueryParamValue = string | number | boolean | null;

/** A result row as the warehouse sent it (JSONEachRow, 64-bit integers as numbers). */
export type WarehouseRow = Record<string, unknown>;

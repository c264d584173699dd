// An embedded warehouse for one test process: a fresh chDB data directory,
// migrated, plus helpers to insert rows the way a log shipper does.
import { inject } from "vitest";
import { insertLogRows, openWarehouse, migrate, type LogTable, type Warehouse } from "../../src/warehouse/index.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "./temp-directory.js";
import { copyWarehouseTemplate } from "./warehouse-template.js";

/**
 * Opens the engine in a new temporary directory and applies the schema;
 * closing it removes the directory. The directory starts as a copy of the
 * run's migrated template when there is one (warehouse-template.ts), so that
 * migrating finds every migration applied.
 */
export async function openTestWarehouse(): Promise<Warehouse> {
  const path = makeTemporaryDirectory("sqe-test-");
  const template = inject("warehouseTemplate");
  if (template !== undefined) copyWarehouseTemplate(template, path);
  const warehouse = await openWarehouse({ kind: "embedded", path, database: "default" });
  await migrate(warehouse.client);
  return {
    ...warehouse,
    async close() {
      await warehouse.close();
      removeTemporaryDirectory(path);
    },
  };
}

/** DateTime64(6) text for `ms` since the epoch plus `micros` microseconds (0-999). */
export function ts(ms: number, micros = 0): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}${String(micros).padStart(3, "0")}`;
}

let sequence = 0;
function nextId(): string {
  sequence += 1;
  return `00000000-0000-4000-8000-${String(sequence).padStart(12, "0")}`;
}

export interface EdgeRowInit {
  project: string;
  timestamp: string;
  path?: string;
  url?: string;
  status?: number;
  id?: string;
}

/** An `edge_logs` row as shipped: the URL defaults to https://<project>.supabase.co<path>. */
export function edgeRow(init: EdgeRowInit) {
  const path = init.path ?? "/rest/v1/todos";
  const url = init.url ?? `https://${init.project}.supabase.co${path}`;
  const status = init.status ?? 200;
  return {
    id: init.id ?? nextId(),
    timestamp: init.timestamp,
    event_message: `GET | ${status} | ${path}`,
    project: init.project,
    metadata: JSON.stringify([{ request: [{ method: "GET", path, url }], response: [{ status_code: status }] }]),
  };
}

export interface FunctionRowInit {
  project: string;
  functionId: string;
  timestamp: string;
  executionTimeMs: number;
  status?: number;
}

/** A `function_edge_logs` row as shipped: everything but the basics inside `metadata`. */
export function functionEdgeRow(init: FunctionRowInit) {
  return {
    id: nextId(),
    timestamp: init.timestamp,
    event_message: `POST | ${init.status ?? 200} | /functions/v1/${init.functionId}`,
    metadata: JSON.stringify([
      {
        project_ref: init.project,
        function_id: init.functionId,
        execution_time_ms: init.executionTimeMs,
        response: [{ status_code: init.status ?? 200 }],
      },
    ]),
  };
}

export async function insertRows(warehouse: Warehouse, table: LogTable, rows: object[]): Promise<void> {
  await insertLogRows(warehouse.client, { table, values: rows });
}

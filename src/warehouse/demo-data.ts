// A realistic, deterministic demo data set for the nine log tables: a few
// projects and functions, requests of every API area, status codes, and
// execution times with a long tail, spread over the days before `now`.
import { toDateTime64Param } from "./datetime-param.js";
import { tablesWithProjectColumn, type LogTable } from "./log-tables.js";

/** A row as a shipper inserts it: the contract's columns only. */
export interface ShippedRow {
  id: string;
  timestamp: string;
  event_message: string;
  project?: string;
  metadata: string;
}

export interface DemoDataOptions {
  /** Rows are spread over the `days` before this instant (ms since epoch). */
  now: number;
  /** Default 8. */
  days?: number;
  /** Number of projects. Default 4. */
  projects?: number;
  /** Seed of the pseudo-random sequence; the same seed gives the same rows. Default 1. */
  seed?: number;
}

/** How the demo rows are shared out between the tables, out of 100,000. */
export const demoRowShares: Record<LogTable, number> = {
  edge_logs: 40_000,
  function_edge_logs: 20_000,
  function_logs: 10_000,
  postgres_logs: 8_000,
  auth_logs: 6_000,
  realtime_logs: 4_000,
  storage_logs: 4_000,
  postgrest_logs: 5_000,
  pgbouncer_logs: 3_000,
};

/** The project references of the demo set: 20 lowercase letters each. */
export function demoProjects(count = 4): string[] {
  const random = mulberry32(7);
  return Array.from({ length: count }, () =>
    Array.from({ length: 20 }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join(""),
  );
}

/** Function ids of a demo project: three UUIDs derived from the project. */
function demoFunctions(project: string): string[] {
  const random = mulberry32(hash(project));
  return [0, 1, 2].map(() => uuid(random));
}

const paths = [
  "/rest/v1/todos",
  "/rest/v1/profiles?select=*",
  "/rest/v1/rpc/search_messages",
  "/storage/v1/object/public/avatars/a.png",
  "/storage/v1/object/sign/docs/report.pdf",
  "/auth/v1/token?grant_type=password",
  "/auth/v1/user",
  "/realtime/v1/websocket",
  "/functions/v1/hello-world",
  "/rest/v1/rpc/auth_refresh", // counts as rest and auth
  "/graphql/v1",
];
const methods = ["GET", "GET", "GET", "POST", "PATCH", "DELETE"];
// Mostly successes, with every class of status present.
const statuses = [...Array<number>(24).fill(200), 201, 201, 204, 301, 400, 401, 404, 500, 503];

/** Yields `count` rows of `table` for the demo set, in batches of at most `batchSize`. */
export function* generateDemoRows(
  table: LogTable,
  count: number,
  options: DemoDataOptions,
  batchSize = 10_000,
): Generator<ShippedRow[]> {
  const random = mulberry32((options.seed ?? 1) * 1_000 + hash(table));
  const projects = demoProjects(options.projects ?? 4);
  const functions = new Map(projects.map((p) => [p, demoFunctions(p)]));
  const spanMs = (options.days ?? 8) * 86_400_000;
  let batch: ShippedRow[] = [];
  for (let i = 0; i < count; i++) {
    const project = pick(random, projects);
    // Skewed towards recent times, as live traffic is: sqrt of a uniform.
    const ageMs = Math.floor(spanMs * (1 - Math.sqrt(random())));
    const timestamp = toDateTime64Param(options.now - ageMs).slice(0, 23) + pad3(Math.floor(random() * 1000));
    const status = pick(random, statuses);
    const row = buildRow(table, random, { project, functionIds: functions.get(project) ?? [], status });
    batch.push({
      id: uuid(random),
      timestamp,
      event_message: row.message,
      ...(tablesWithProjectColumn.has(table) ? { project } : {}),
      metadata: JSON.stringify([row.metadata]),
    });
    if (batch.length === batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** What a demo row was drawn with before its table's own fields: its project, that project's functions and a status. */
interface RowDraw {
  project: string;
  functionIds: string[];
  status: number;
}

function buildRow(
  table: LogTable,
  random: () => number,
  draw: RowDraw,
): { message: string; metadata: Record<string, unknown> } {
  const { project, functionIds, status } = draw;
  switch (table) {
    case "edge_logs": {
      const path = pick(random, paths);
      const method = pick(random, methods);
      const url = `https://${project}.supabase.co${path}`;
      return {
        message: `${method} | ${status} | ${path}`,
        metadata: { request: [{ method, path, url }], response: [{ status_code: status }] },
      };
    }
    case "function_edge_logs": {
      const functionId = pick(random, functionIds);
      // Log-normal around 40 ms with one call in fifty ten times slower: a long tail.
      const base = Math.exp(3.7 + 0.8 * gaussian(random));
      const executionTime = Math.round((random() < 0.02 ? base * 10 : base) * 100) / 100;
      return {
        message: `POST | ${status} | /functions/v1/${functionId}`,
        metadata: {
          project_ref: project,
          function_id: functionId,
          execution_time_ms: executionTime,
          response: [{ status_code: status }],
        },
      };
    }
    case "function_logs":
      return {
        message: pick(random, ["booted", "request received", "listening on http://localhost:9999/", "shutdown"]),
        metadata: { project_ref: project, function_id: pick(random, functionIds), level: "info" },
      };
    case "realtime_logs":
    case "storage_logs":
      return {
        message: table === "realtime_logs" ? "channel joined" : `object ${status < 400 ? "served" : "failed"}`,
        metadata: { project, level: status < 400 ? "info" : "error" },
      };
    case "postgres_logs":
      return {
        message: pick(random, ["connection authorized", "statement: SELECT 1", "checkpoint complete"]),
        metadata: { parsed: [{ error_severity: status < 500 ? "LOG" : "ERROR" }] },
      };
    case "auth_logs":
      return { message: pick(random, ["login", "token refreshed", "user signed up"]), metadata: { level: "info" } };
    case "postgrest_logs":
      return { message: `${pick(random, methods)} /todos ${status}`, metadata: { status } };
    case "pgbouncer_logs":
      return { message: "client connected", metadata: { pool: "transaction" } };
  }
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function gaussian(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function uuid(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = "4";
  hex[16] = ((parseInt(hex[16] ?? "0", 16) & 0x3) | 0x8).toString(16);
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function pad3(n: number): string {
  return String(n).padStart(3, "0");
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** A small, fast seeded PRNG (public domain). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

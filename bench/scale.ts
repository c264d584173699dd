// Scale of the saved queries on the embedded engine: each query for one of
// 100 projects over 1 million and then 10 million rows per table, median of
// repeated runs through the executor (no cache). Run by bench/run.ts in its
// own process (one chDB data directory per process); prints one JSON line.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { createEndpointRegistry, createEndpointService, savedQueryServices } from "../src/endpoints/index.js";
import { createQueryExecutor } from "../src/executor/index.js";
import { migrate, openWarehouse } from "../src/warehouse/index.js";

const sizes = (process.argv[2] ?? "1000000,10000000").split(",").map(Number);
const runs = Number(process.argv[3] ?? 30);
const warehouse = await openWarehouse({ kind: "embedded", path: mkdtempSync(join(tmpdir(), "sqe-scale-")), database: "default" });
await migrate(warehouse.client);
const registry = createEndpointRegistry({ services: savedQueryServices });
const service = createEndpointService({ executor: createQueryExecutor({ client: warehouse.client }) });

const queries: [string, Record<string, string>][] = [
  ["functions.invocation-stats", { project: "proj07", interval: "7day" }],
  ["functions.invocation-stats", { project: "proj07", interval: "1day" }],
  ["usage.api-counts", { project: "//proj07\\.", interval: "daily" }],
  ["logs.all", { project: "proj07", projectTier: "PRO" }],
];

/**
 * Inserts `rows` rows into edge_logs and function_edge_logs as a shipper would
 * (only the contract's columns), generated inside the engine: 100 projects,
 * timestamps over the last 8 days, paths of every API area.
 */
async function insert(rows: number, offset: number) {
  const project = "concat('proj', leftPad(toString((number + ${offset}) % 100), 2, '0'))";
  const timestamp = "now64(6) - toIntervalMicrosecond(cityHash64(number, ${offset}) % (8 * 86400000000))";
  const fill = (sql: string) => sql.replaceAll("${offset}", String(offset));
  await warehouse.client.command({
    query: fill(`INSERT INTO edge_logs (id, timestamp, event_message, project, metadata)
      SELECT generateUUIDv4(), ${timestamp}, 'GET | 200', ${project},
        concat('[{"request":[{"method":"GET","path":"', arrayElement(['/rest/v1/t','/storage/v1/o','/auth/v1/token','/realtime/v1/ws'], number % 4 + 1),
               '","url":"https://', ${project}, '.supabase.co/x"}],"response":[{"status_code":', toString(200 + (number % 7) * 50), '}]}]')
      FROM numbers(${rows})`),
  });
  await warehouse.client.command({
    query: fill(`INSERT INTO function_edge_logs (id, timestamp, event_message, metadata)
      SELECT generateUUIDv4(), ${timestamp}, 'POST | 200',
        concat('[{"project_ref":"', ${project}, '","function_id":"f', toString(number % 3),
               '","execution_time_ms":', toString(10 + number % 500), ',"response":[{"status_code":', toString(200 + (number % 7) * 50), '}]}]')
      FROM numbers(${rows})`),
  });
  await warehouse.client.command({ query: "OPTIMIZE TABLE edge_logs FINAL" });
  await warehouse.client.command({ query: "OPTIMIZE TABLE function_edge_logs FINAL" });
}

const result: Record<string, Record<string, number>> = {};
let inserted = 0;
for (const size of sizes) {
  process.stderr.write(`scale: inserting up to ${size} rows per table\n`);
  await insert(size - inserted, inserted);
  inserted = size;
  const counted = await warehouse.client.query({
    query: "SELECT (SELECT count() FROM edge_logs) AS edge, (SELECT count() FROM function_edge_logs) AS fn",
    format: "JSONEachRow",
  });
  const [counts] = await counted.json<{ edge: number; fn: number }>();
  if (Number(counts?.edge) !== size || Number(counts?.fn) !== size) {
    throw new Error(`expected ${size} rows per table, found ${JSON.stringify(counts)}`);
  }
  for (const [name, fields] of queries) {
    const endpoint = registry.find(name)!;
    const request = create(endpoint.method.input, fields as never);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) await service.run(endpoint, request); // warm-up, untimed
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      await service.run(endpoint, request);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const label = `${name} ${fields.interval ?? fields.projectTier ?? ""}`.trim();
    (result[label] ??= {})[String(size)] = times[Math.floor(times.length / 2)]!;
  }
}
await warehouse.close();
process.stdout.write(JSON.stringify(result) + "\n");

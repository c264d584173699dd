// Scale of the saved queries on the embedded engine: each query for one of
// 100 projects over a small and a large table (1 and 10 million rows per
// table), median of repeated runs through the executor (no cache). The two
// sizes are two databases of one engine, and their runs alternate, so both
// medians come from the same minutes of a noisy machine (measured one size
// after the other, the small size's medians alone moved widely from run to
// run). Run by bench/run.ts in its own process (one chDB data directory per
// process); prints one JSON line.
import { create } from "@bufbuild/protobuf";
import { createEndpointRegistry, createEndpointService, savedQueryServices } from "../src/endpoints/index.js";
import { createQueryExecutor } from "../src/executor/index.js";
import { migrate, openWarehouse } from "../src/warehouse/index.js";
import { temporaryDirectory } from "./temp-directory.js";

const sizes = (process.argv[2] ?? "1000000,10000000").split(",").map(Number);
const runs = Number(process.argv[3] ?? 30);
const warehouse = await openWarehouse({
  kind: "embedded",
  path: temporaryDirectory("sqe-scale-"),
  database: "default",
});
const databaseOf = (size: number) => `scale_${size}`;
/** Makes the session's current database the one holding `size` rows. */
const use = (size: number) => warehouse.client.command({ query: `USE ${databaseOf(size)}` });
const registry = createEndpointRegistry({ services: savedQueryServices });
const service = createEndpointService({ executor: createQueryExecutor({ client: warehouse.client }) });

const queries: [string, Record<string, string>][] = [
  ["functions.invocation-stats", { project: "proj07", interval: "7day" }],
  ["functions.invocation-stats", { project: "proj07", interval: "1day" }],
  ["usage.api-counts", { project: "//proj07\\.", interval: "daily" }],
  ["logs.all", { project: "proj07", projectTier: "PRO" }],
];

/**
 * Inserts `rows` rows into edge_logs and function_edge_logs of the current
 * database as a shipper would (only the contract's columns), generated inside
 * the engine: 100 projects, timestamps over the last 8 days, paths of every
 * API area.
 */
async function insert(rows: number) {
  const project = "concat('proj', leftPad(toString(number % 100), 2, '0'))";
  const timestamp = "now64(6) - toIntervalMicrosecond(cityHash64(number) % (8 * 86400000000))";
  await warehouse.client.command({
    query: `INSERT INTO edge_logs (id, timestamp, event_message, project, metadata)
      SELECT generateUUIDv4(), ${timestamp}, 'GET | 200', ${project},
        concat('[{"request":[{"method":"GET","path":"', arrayElement(['/rest/v1/t','/storage/v1/o','/auth/v1/token','/realtime/v1/ws'], number % 4 + 1),
               '","url":"https://', ${project}, '.supabase.co/x"}],"response":[{"status_code":', toString(200 + (number % 7) * 50), '}]}]')
      FROM numbers(${rows})`,
  });
  await warehouse.client.command({
    query: `INSERT INTO function_edge_logs (id, timestamp, event_message, metadata)
      SELECT generateUUIDv4(), ${timestamp}, 'POST | 200',
        concat('[{"project_ref":"', ${project}, '","function_id":"f', toString(number % 3),
               '","execution_time_ms":', toString(10 + number % 500), ',"response":[{"status_code":', toString(200 + (number % 7) * 50), '}]}]')
      FROM numbers(${rows})`,
  });
  await warehouse.client.command({ query: "OPTIMIZE TABLE edge_logs FINAL" });
  await warehouse.client.command({ query: "OPTIMIZE TABLE function_edge_logs FINAL" });
}

for (const size of sizes) {
  process.stderr.write(`scale: inserting ${size} rows per table\n`);
  await warehouse.client.command({ query: `CREATE DATABASE ${databaseOf(size)}` });
  await use(size);
  await migrate(warehouse.client);
  await insert(size);
  const counted = await warehouse.client.query({
    query: "SELECT (SELECT count() FROM edge_logs) AS edge, (SELECT count() FROM function_edge_logs) AS fn",
    format: "JSONEachRow",
  });
  const [counts] = await counted.json<{ edge: number; fn: number }>();
  if (Number(counts?.edge) !== size || Number(counts?.fn) !== size) {
    throw new Error(`expected ${size} rows per table, found ${JSON.stringify(counts)}`);
  }
}

const result: Record<string, Record<string, number>> = {};
for (const [name, fields] of queries) {
  const endpoint = registry.find(name)!;
  const request = create(endpoint.method.input, fields as never);
  const times = new Map<number, number[]>(sizes.map((size) => [size, []]));
  for (let i = -5; i < runs; i++) {
    for (const size of sizes) {
      await use(size);
      const t = performance.now();
      await service.run(endpoint, request);
      if (i >= 0) times.get(size)!.push(performance.now() - t); // the first five are warm-up
    }
  }
  const label = `${name} ${fields.interval ?? fields.projectTier ?? ""}`.trim();
  for (const [size, sample] of times) {
    sample.sort((a, b) => a - b);
    (result[label] ??= {})[String(size)] = sample[Math.floor(sample.length / 2)]!;
  }
}
await warehouse.close();
process.stdout.write(`${JSON.stringify(result)}\n`);

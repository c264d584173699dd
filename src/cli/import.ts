// `npm run import -- --table T FILE` (or `-` for standard input): loads log
// rows, one JSON object a line in the columns a shipper inserts, into the
// configured warehouse. The warehouse is opened first (a held data directory
// is said before a long file is read); then every line is checked: with any
// bad line nothing is inserted (each is reported by number) unless
// --skip-invalid.
// A file is opened once and read from that one descriptor: checked, read
// again to make sure it did not change (size, time, path or content: then
// nothing is inserted), and read a third time to insert, each batch only if
// its bytes are those checked. It is never held in memory; standard input,
// which cannot be read twice, is held. Lines are bounded in bytes and
// nesting: a longer or deeper one is a bad line like any other.
// When a running service holds the embedded data directory, or `--url` names
// a service, the file goes to its import route instead, which checks the
// lines the same way (import-through-service.ts).
import { closeSync, existsSync } from "node:fs";
import { type Config, readConfig } from "../config/index.js";
import { silentLogger } from "../observability/index.js";
import {
  DataDirectoryHeldError,
  defaultMaxDepth,
  insertLogRows,
  latestTimestamp,
  logTables,
  migrate,
  openWarehouse,
  shippedColumns,
  type LogTable,
  type Warehouse,
} from "../warehouse/index.js";
import { readCommandLine } from "./command-line.js";
import { type ImportInput, runImportPasses } from "./import-passes.js";
import { ServiceUnreachableError } from "./import-client.js";
import { openImportFile } from "./import-source.js";
import { configuredServiceUrl, importThroughService, serviceKey } from "./import-through-service.js";
import { runCli } from "./run-cli.js";

const usage = `usage: npm run import -- --table TABLE [--skip-invalid] [--batch-size N] [--url URL] FILE

Loads log rows into the configured warehouse (CLICKHOUSE_URL, or the embedded
engine in CHDB_PATH). FILE holds one JSON object a line (NDJSON) with the
columns a shipper inserts into TABLE; - reads standard input. Every line is
checked before anything is inserted: with any bad line, each is reported by
its number and nothing is inserted, unless --skip-invalid. FILE must be a
regular file (a pipe is read as -); if it changes before its rows are
inserted, nothing is.

While the service runs on the embedded data directory (which belongs to one
process), FILE is sent to its route POST /api/import/TABLE at HOST:PORT
instead, with the first key of API_KEYS or the key stored in
CHDB_PATH/api-key; the service checks every line the same way, all or
nothing, and inserts. --url sends FILE to the service at URL in any case.

TABLE is one of: ${logTables.join(", ")}.

options:
  --table TABLE     the log table to load (required)
  --skip-invalid    insert the good lines and report the bad ones
  --batch-size N    rows per insert (default 10000)
  --max-line-bytes N  longest line; a longer one is a bad line (default 1048576)
  --max-depth N     deepest nesting of arrays and objects in a line or its
                    metadata; a deeper one is a bad line (default ${defaultMaxDepth})
  --url URL         send FILE to the service at URL (http://host:port), which
                    checks and inserts it; --skip-invalid, --batch-size,
                    --max-line-bytes and --max-depth are then the service's
  -h, --help        print this and exit`;

const { values, positionals } = readCommandLine({
  usage,
  options: {
    table: { type: "string" },
    "skip-invalid": { type: "boolean", default: false },
    "batch-size": { type: "string", default: "10000" },
    "max-line-bytes": { type: "string", default: "1048576" },
    "max-depth": { type: "string", default: String(defaultMaxDepth) },
    url: { type: "string" },
  },
  allowPositionals: true,
  check: ({ values, positionals }) => {
    const problems: string[] = [];
    const table = values.table as LogTable | undefined;
    const batchSize = Number(values["batch-size"]);
    if (table === undefined) problems.push("--table is required");
    else if (!logTables.includes(table)) problems.push(`--table must be one of ${logTables.join(", ")}`);
    if (!(Number.isSafeInteger(batchSize) && batchSize > 0))
      problems.push("--batch-size must be a positive whole number");
    for (const name of ["max-line-bytes", "max-depth"] as const) {
      const n = Number(values[name]);
      // A string over 512 MiB is beyond what V8 can make of a line.
      if (!(Number.isSafeInteger(n) && n > 0 && n <= 512 * 1024 * 1024))
        problems.push(`--${name} must be a whole number from 1 to 536870912`);
    }
    if (values.url !== undefined) {
      if (!/^https?:\/\/[^/]/.test(values.url)) problems.push("--url must be an http:// or https:// URL");
      if (values["skip-invalid"] === true)
        problems.push("--skip-invalid and --url do not go together: the service's import is all or nothing");
    }
    if (positionals.length !== 1) problems.push("give exactly one FILE, or - for standard input");
    else if (positionals[0] !== "-" && !existsSync(positionals[0]!)) problems.push(`${positionals[0]} does not exist`);
    return problems;
  },
});

await runCli(async () => {
  const table = values.table as LogTable;
  const source = positionals[0]!;
  const say = (line: string) => process.stderr.write(`import: ${line}\n`);
  // Opened before the warehouse: a FIFO or a device is refused at once, and never waited on.
  const file = source === "-" ? undefined : openImportFile(source);
  const input: ImportInput = file === undefined ? { stdin: process.stdin } : { file, path: source };
  const config = readConfig();
  const through = (url: string) =>
    importThroughService({
      url,
      key: serviceKey(config),
      table,
      source: input,
      say,
      maxBytes: config.limits.maxImportBytes,
    }).then(({ inserted }) => process.stdout.write(`imported ${inserted} rows into ${table}\n`));

  try {
    if (values.url !== undefined) return void (await through(values.url));
    const warehouse = await openHeldOrNot(config, through);
    if (warehouse !== undefined) await importHere(warehouse, input, table, config);
  } finally {
    if (file !== undefined) closeSync(file.fd);
  }
});

/**
 * The warehouse, opened first: a server that does not answer is said before
 * a long file is read. A data directory another process holds goes to the
 * configured service instead (undefined then); with no service there, or
 * with --skip-invalid, the held directory is what is said.
 */
async function openHeldOrNot(config: Config, through: (url: string) => Promise<unknown>) {
  try {
    return await openWarehouse(config.warehouse);
  } catch (error) {
    if (!(error instanceof DataDirectoryHeldError) || values["skip-invalid"] === true) throw error;
    try {
      await through(configuredServiceUrl(config));
      return undefined;
    } catch (failure) {
      throw failure instanceof ServiceUnreachableError ? error : failure;
    }
  }
}

/** Checks and inserts into the warehouse this process opened. */
async function importHere(warehouse: Warehouse, input: ImportInput, table: LogTable, config: Config) {
  const say = (line: string) => process.stderr.write(`import: ${line}\n`);
  try {
    await migrate(warehouse.client, { logger: silentLogger });
    const { inserted, bad } = await runImportPasses({
      table,
      source: input,
      batchSize: Number(values["batch-size"]),
      maxLineBytes: Number(values["max-line-bytes"]),
      maxDepth: Number(values["max-depth"]),
      latest: latestTimestamp(Date.now(), config.limits.importMaxFutureSeconds),
      skipInvalid: values["skip-invalid"] === true,
      say,
      beforeInsert: (good) =>
        say(
          `inserting ${good} rows into ${table} (${warehouse.location}); columns ${shippedColumns(table).join(", ")}`,
        ),
      insert: (rows) => insertLogRows(warehouse.client, { table, values: rows }),
    });
    if (inserted > 0)
      process.stdout.write(`imported ${inserted} rows into ${table}${bad > 0 ? ` (${bad} bad lines skipped)` : ""}\n`);
  } finally {
    await warehouse.close();
  }
}

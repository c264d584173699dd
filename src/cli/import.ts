// `npm run import -- --table T FILE` (or `-` for standard input): loads log
// rows, one JSON object a line in the columns a shipper inserts, into the
// configured warehouse. The warehouse is opened first (a held data directory
// is said before a long file is read); then every line is checked: with any
// bad line nothing is inserted (each is reported by number) unless
// --skip-invalid.
// A file is read twice (check, then insert) so it is never held in memory;
// standard input, which cannot be read twice, is held.
import { createReadStream, existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { readConfig } from "../config/index.js";
import { silentLogger } from "../observability/index.js";
import { logTables, migrate, openWarehouse, type LogTable, type ShippedRow } from "../warehouse/index.js";
import { readCommandLine } from "./command-line.js";
import { checkLogLine, shippedColumns } from "./log-line.js";
import { runCli } from "./run-cli.js";

const usage = `usage: npm run import -- --table TABLE [--skip-invalid] [--batch-size N] FILE

Loads log rows into the configured warehouse (CLICKHOUSE_URL, or the embedded
engine in CHDB_PATH). FILE holds one JSON object a line (NDJSON) with the
columns a shipper inserts into TABLE; - reads standard input. Every line is
checked before anything is inserted: with any bad line, each is reported by
its number and nothing is inserted, unless --skip-invalid.

TABLE is one of: ${logTables.join(", ")}.

options:
  --table TABLE     the log table to load (required)
  --skip-invalid    insert the good lines and report the bad ones
  --batch-size N    rows per insert (default 10000)
  -h, --help        print this and exit`;

const { values, positionals } = readCommandLine({
  usage,
  options: {
    table: { type: "string" },
    "skip-invalid": { type: "boolean", default: false },
    "batch-size": { type: "string", default: "10000" },
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
    if (positionals.length !== 1) problems.push("give exactly one FILE, or - for standard input");
    else if (positionals[0] !== "-" && !existsSync(positionals[0]!)) problems.push(`${positionals[0]} does not exist`);
    return problems;
  },
});

/** The most bad lines reported one by one; the rest are counted. */
const maxReported = 20;

await runCli(async () => {
  const table = values.table as LogTable;
  const batchSize = Number(values["batch-size"]);
  const source = positionals[0]!;
  const fromStdin = source === "-";
  const say = (line: string) => process.stderr.write(`import: ${line}\n`);

  // The warehouse first: a data directory another process holds, or a server
  // that does not answer, is said before a long file is read.
  const warehouse = await openWarehouse(readConfig().warehouse);
  try {
    await migrate(warehouse.client, { logger: silentLogger });

    // Pass 1: check every line; standard input's good rows are kept for pass 2.
    const held: ShippedRow[] = [];
    let good = 0;
    let bad = 0;
    for await (const { number, check } of checkedLines(table, source)) {
      if (check.ok) {
        good += 1;
        if (fromStdin) held.push(check.row);
        continue;
      }
      bad += 1;
      if (bad <= maxReported) say(`line ${number}: ${check.problems.join("; ")}`);
    }
    if (bad > maxReported) say(`... and ${bad - maxReported} more bad lines`);
    if (bad > 0 && !values["skip-invalid"]) {
      throw new Error(
        `${bad} bad line${bad === 1 ? "" : "s"} in ${fromStdin ? "standard input" : source}; nothing was inserted (${good === 0 ? "no line is good" : `--skip-invalid inserts the ${good} good one${good === 1 ? "" : "s"}`})`,
      );
    }
    if (good === 0) {
      say(`no rows to insert into ${table}`);
      return;
    }

    // Pass 2: insert in batches.
    say(`inserting ${good} rows into ${table} (${warehouse.location}); columns ${shippedColumns(table).join(", ")}`);
    let inserted = 0;
    let batch: ShippedRow[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      await warehouse.client.insert({ table, values: batch, format: "JSONEachRow" });
      inserted += batch.length;
      batch = [];
      say(`${inserted} of ${good} rows inserted`);
    };
    const rows = fromStdin ? held : goodRows(table, source);
    for await (const row of rows) {
      batch.push(row);
      if (batch.length === batchSize) await flush();
    }
    await flush();
    process.stdout.write(`imported ${inserted} rows into ${table}${bad > 0 ? ` (${bad} bad lines skipped)` : ""}\n`);
  } finally {
    await warehouse.close();
  }
});

/** Each non-blank line of `source` (a file, or - for standard input) with its number and check. */
async function* checkedLines(table: LogTable, source: string) {
  const input = source === "-" ? process.stdin : createReadStream(source);
  const lines = createInterface({ input, crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number += 1;
    if (line.trim() === "") continue;
    yield { number, check: checkLogLine(table, line) };
  }
}

/** The good rows of a file, read again. */
async function* goodRows(table: LogTable, file: string) {
  for await (const { check } of checkedLines(table, file)) if (check.ok) yield check.row;
}

// The migrations on a ClickHouse cluster: each single-node statement of
// `sql/migrations` turned mechanically into the statements that do the same
// ON CLUSTER, so one migration file serves both modes. What cannot be turned
// mechanically is refused with an error, never passed through.
//
// A log table `t` of the single-node schema becomes two tables on every node:
// `t_local`, a ReplicatedMergeTree holding the node's shard, and `t`, a
// Distributed table over the `t_local` of every shard, sharded by
// `cityHash64(project)`. Readers and shippers keep using `t`. The service's
// call log is sharded the same way by `caller`. A table with neither column
// (the service's own bookkeeping, such as the demo data loads) is not
// sharded: one ReplicatedMergeTree `t` that every node holds whole.
import { splitStatements } from "./sql-files.js";

/** Where the cluster's tables live. Both names are plain identifiers (checked by the configuration). */
export interface ClusterLayout {
  /** The cluster, as named in the servers' `remote_servers`. */
  cluster: string;
  /** The database holding the tables. */
  database: string;
}

/** Suffix of the replicated table that holds a shard's rows behind each Distributed table. */
const localTableSuffix = "_local";

/**
 * The columns a table is sharded by, the first one it has: `project` for
 * every log table, `caller` for the call log (`service_calls`). `project` is
 * inserted or MATERIALIZED from `metadata`; the Distributed table declares
 * it the same way, computes it for each inserted row before it picks the
 * shard, and sends only the inserted columns on (the shard computes the
 * MATERIALIZED ones again). Keying on the column rather than on the JSON
 * expression lets `optimize_skip_unused_shards` read a `project = x` filter.
 */
const shardingColumns = ["project", "caller"] as const;

/** `cityHash64(<column>)` of the first sharding column among `columns`, or undefined: not sharded. */
function shardingKeyOf(columns: string): string | undefined {
  const column = shardingColumns.find((name) => new RegExp(`^\\s*${name}\\s`, "m").test(columns));
  return column === undefined ? undefined : `cityHash64(${column})`;
}

/**
 * The statements a migration applies: its statements as written on a single
 * node, or each of them transformed for `layout` when one is given. Throws,
 * naming the migration, when a statement cannot be transformed.
 */
export function migrationStatements(migration: { name: string; sql: string }, layout?: ClusterLayout): string[] {
  const statements = splitStatements(migration.sql);
  if (layout === undefined) return statements;
  return statements.flatMap((statement) => {
    try {
      return clusterStatements(statement, layout);
    } catch (error) {
      throw new Error(`migration ${migration.name}: ${(error as Error).message}`);
    }
  });
}

const createTable = /^CREATE TABLE IF NOT EXISTS (\w+)\s*\(([\s\S]*)\)\s*ENGINE = MergeTree\s+([\s\S]+)$/;
const alterTable = /^ALTER TABLE (\w+)\s+([\s\S]+)$/;

/**
 * One single-node statement as the statements that do the same on the
 * cluster, in the order they must run. Understood: `CREATE TABLE IF NOT
 * EXISTS t (...) ENGINE = MergeTree ...`, and `ALTER TABLE t` of a log table
 * (one with a `project` column) with one command that adds, drops or
 * materializes an index or a column idempotently; `MODIFY SETTING
 * non_replicated_deduplication_window`, which has no statement there.
 * Anything else throws.
 */
function clusterStatements(statement: string, layout: ClusterLayout): string[] {
  const create = createTable.exec(statement);
  if (create !== null) {
    const [, table, columns, rest] = create as unknown as [string, string, string, string];
    const shardingKey = shardingKeyOf(columns);
    if (shardingKey === undefined) {
      return [
        `CREATE TABLE IF NOT EXISTS ${qualified(table, layout)} ON CLUSTER ${layout.cluster}\n(${columns})\n` +
          `ENGINE = ReplicatedMergeTree('/clickhouse/tables/all/{database}/${table}', '{replica}')\n${rest}`,
      ];
    }
    const local = qualified(table + localTableSuffix, layout);
    return [
      `CREATE TABLE IF NOT EXISTS ${local} ON CLUSTER ${layout.cluster}\n(${columns})\n` +
        `ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/${table}${localTableSuffix}', '{replica}')\n${rest}`,
      `CREATE TABLE IF NOT EXISTS ${qualified(table, layout)} ON CLUSTER ${layout.cluster}\n(${columns})\n` +
        `ENGINE = Distributed(${layout.cluster}, ${layout.database}, ${table}${localTableSuffix}, ${shardingKey})`,
    ];
  }
  if (statement.startsWith("CREATE TABLE")) {
    throw new Error(
      `cannot run on a cluster: ${firstLine(statement)} (write CREATE TABLE IF NOT EXISTS ... ENGINE = MergeTree)`,
    );
  }

  const alter = alterTable.exec(statement);
  if (alter === null) throw new Error(`cannot run on a cluster: ${firstLine(statement)}`);
  const [, table, command] = alter as unknown as [string, string, string];
  // Replicated tables deduplicate inserts by their own window; the setting is for single-node tables only.
  if (/^MODIFY SETTING non_replicated_deduplication_window = \d+$/.test(command)) return [];
  if (hasTopLevelComma(command)) {
    throw new Error(`cannot run on a cluster: ${firstLine(statement)} (one command per ALTER TABLE)`);
  }
  const onLocal = `ALTER TABLE ${qualified(table + localTableSuffix, layout)} ON CLUSTER ${layout.cluster} ${command}`;
  const onDistributed = `ALTER TABLE ${qualified(table, layout)} ON CLUSTER ${layout.cluster} ${command}`;
  const kind = /^(ADD|DROP|CLEAR|MATERIALIZE|MODIFY) (INDEX|COLUMN)\b/.exec(command);
  if (kind === null || !understoodCommands.has(kind[0])) {
    throw new Error(`cannot run on a cluster: ${firstLine(statement)} (unknown ALTER command)`);
  }
  const [verbAndObject, verb, object] = kind as unknown as [string, string, string];
  if (verb === "ADD" && !command.startsWith(`${verbAndObject} IF NOT EXISTS `)) {
    throw new Error(
      `cannot run on a cluster: ${firstLine(statement)} (write ${verbAndObject} IF NOT EXISTS so it can run again)`,
    );
  }
  if (verb === "DROP" && !command.startsWith(`${verbAndObject} IF EXISTS `)) {
    throw new Error(
      `cannot run on a cluster: ${firstLine(statement)} (write ${verbAndObject} IF EXISTS so it can run again)`,
    );
  }
  // Data and skip indexes live in the local tables only. A column must also
  // exist in the Distributed table to be read through it: added to the local
  // tables first, dropped from the Distributed table first, so the
  // Distributed table never names a column its local tables lack.
  if (object === "INDEX" || verb === "MATERIALIZE") return [onLocal];
  if (verb === "DROP") return [onDistributed, onLocal];
  return [onLocal, onDistributed];
}

const understoodCommands = new Set([
  "ADD INDEX",
  "DROP INDEX",
  "CLEAR INDEX",
  "MATERIALIZE INDEX",
  "ADD COLUMN",
  "DROP COLUMN",
  "MODIFY COLUMN",
  "MATERIALIZE COLUMN",
]);

function qualified(table: string, layout: ClusterLayout): string {
  return `${layout.database}.${table}`;
}

function firstLine(statement: string): string {
  return statement.split("\n")[0]!;
}

/** A comma outside parentheses and quotes: the ALTER has several commands. */
function hasTopLevelComma(text: string): boolean {
  let depth = 0;
  let quote: string | undefined;
  for (const char of text) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === "`" || char === '"') quote = char;
    else if (char === "(") depth += 1;
    else if (char === ")") depth -= 1;
    else if (char === "," && depth === 0) return true;
  }
  return false;
}

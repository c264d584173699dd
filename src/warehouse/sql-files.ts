// Locates and reads the SQL of the project: `sql/migrations/*.sql` and one
// `sql/<endpoint name>.sql` per saved query.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";

let found: string | undefined;

/**
 * `sql/` at the top of the project: the nearest folder above this module
 * that holds `sql/migrations/`. The module runs from `src/warehouse/` under
 * tsx and from a bundle in `dist/` or `dist/cli/` after a build, so no fixed
 * relative path fits all three. Looked for when first needed, so that a
 * command's `--help` works wherever it is.
 */
export function sqlDirectory(): string {
  if (found !== undefined) return found;
  for (let directory = import.meta.dirname; ; directory = dirname(directory)) {
    if (existsSync(join(directory, "sql", "migrations"))) return (found = join(directory, "sql"));
    if (dirname(directory) === directory)
      throw new Error(`no sql/migrations/ in any folder above ${import.meta.dirname}: cannot find the project's SQL`);
  }
}

/** The SQL text of the saved query named `name`, e.g. `usage.api-counts`. */
export function readSavedQuerySql(name: string, directory = sqlDirectory()): string {
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(name)) {
    throw new Error(`not a saved query name: ${name}`);
  }
  return readFileSync(join(directory, `${name}.sql`), "utf8");
}

export interface MigrationFile {
  /** File name, e.g. `0001_log_tables.sql`; migrations apply in name order. */
  name: string;
  sql: string;
  /**
   * Checksums of earlier texts of this migration that differ from this one
   * in comments only (`sql/migrations/amended.json`): a record of one of
   * them is a record of this migration.
   */
  earlierChecksums?: readonly string[];
}

/** Every migration in `sql/migrations`, in the order they apply. */
export function readMigrationFiles(directory = join(sqlDirectory(), "migrations")): MigrationFile[] {
  const files = readdirSync(directory);
  const amended = files.includes("amended.json")
    ? (JSON.parse(readFileSync(join(directory, "amended.json"), "utf8")) as { migrations: Record<string, string[]> })
        .migrations
    : {};
  return files
    .filter((file) => file.endsWith(".sql"))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(directory, name), "utf8"), earlierChecksums: amended[name] ?? [] }));
}

/**
 * Splits a migration into statements: a statement ends with `;` at the end of
 * a line. Comment lines are dropped. Migrations keep `;` out of literals.
 */
export function splitStatements(sql: string): string[] {
  const withoutComments = sql
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("--"))
    .join("\n");
  return withoutComments
    .split(/;[ \t]*$/m)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== "");
}

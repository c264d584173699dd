// The tables a saved query reads, from its SQL: every name after FROM or
// JOIN. Names of its own WITH clauses come along, which name no table and so
// match none; comments and string literals are skipped first.

/** The names after `FROM` and `JOIN` in `sql`, comments and quoted text left out. */
export function tablesReadBy(sql: string): ReadonlySet<string> {
  const code = sql
    .replace(/--[^\n]*/g, " ")
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/'(?:[^'\\]|\\.)*'/g, "''");
  const tables = new Set<string>();
  for (const match of code.matchAll(/\b(?:FROM|JOIN)\s+(?:[`"]?\w+[`"]?\s*\.\s*)?[`"]?(\w+)[`"]?/gi)) {
    tables.add(match[1]!);
  }
  return tables;
}

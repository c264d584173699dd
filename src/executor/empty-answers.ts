// Saved queries answered with no rows and no warehouse query: what a query
// over a table the service does not write (the call log, turned off) answers.
import type { QueryExecutor } from "./query-executor.js";

/**
 * `executor`, except that the saved queries named in `names` answer no rows
 * at once, with no statistics, whatever their parameters. `executor` itself
 * when `names` is empty.
 */
export function withEmptyAnswers(executor: QueryExecutor, names: ReadonlySet<string>): QueryExecutor {
  if (names.size === 0) return executor;
  return {
    execute(query, params, options) {
      if (!names.has(query.name)) return executor.execute(query, params, options);
      return Promise.resolve({ rows: [], queryId: "", durationMs: 0 });
    },
  };
}

// Saved queries made slow on purpose, for deadline and overload tests: the
// SQL of `name` is swapped for a scan of 10^11 numbers that takes every
// parameter of that endpoint, so the real executor and engine run it.
import { readSavedQuerySql } from "../../src/warehouse/index.js";

const slowSql: Record<string, string> = {
  "logs.all": `SELECT toString(count()) AS id FROM numbers(100000000000)
    WHERE sipHash64(number) = 0 AND {project:String} != '' AND {project_tier:String} IN ('FREE', 'PRO', 'PAYG', 'ENTERPRISE')
      AND {iso_timestamp_start:Nullable(String)} IS NULL AND {iso_timestamp_end:Nullable(String)} IS NULL AND {cursor_timestamp:Nullable(String)} IS NULL AND {cursor_id:Nullable(String)} IS NULL
      AND {now:DateTime64(6, 'UTC')} IS NOT NULL`,
  "functions.invocation-stats": `SELECT count() AS count FROM numbers(100000000000)
    WHERE sipHash64(number) = 0 AND {project:String} != '' AND {function_id:String} = ''
      AND {interval:String} IN ('5min', '15min', '1hr', '1day', '7day') AND {now:DateTime64(6, 'UTC')} IS NOT NULL`,
};

/** A `readSql` for the app that makes the endpoint `slow` slow and leaves the others as they are. */
export function withSlowQuery(slow: keyof typeof slowSql & string): (name: string) => string {
  return (name) => (name === slow ? slowSql[slow]! : readSavedQuerySql(name));
}

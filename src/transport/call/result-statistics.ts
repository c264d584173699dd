// What the warehouse's query of a result cost, as every transport names it (docs/usage-accounting.md).
import type { EndpointResult } from "../../endpoints/index.js";

// Made once per computation: every hit of a cached result names the same warehouse time and fields.
const timingByComputation = new WeakMap<object, string>();
const fieldsByComputation = new WeakMap<object, Record<string, string>>();

/** `warehouse;dur=…` of the query that made `result` (its own `elapsed` when it reported one, else as measured). */
export function warehouseTimingOf(result: EndpointResult): string {
  const computation = result.computation;
  let timing = timingByComputation.get(computation);
  if (timing === undefined) {
    timing = `warehouse;dur=${(computation.statistics?.elapsedMs ?? computation.warehouseMs).toFixed(3)}`;
    timingByComputation.set(computation, timing);
  }
  return timing;
}

/**
 * `server-timing`, then `x-bytes-read` and `x-rows-read` when the warehouse reported them, sorted as connect-node
 * writes headers or trailers; one object per computation, not to be changed.
 */
export function statisticsFieldsOf(result: EndpointResult): Record<string, string> {
  let fields = fieldsByComputation.get(result.computation);
  if (fields === undefined) {
    fields = { "server-timing": warehouseTimingOf(result) };
    const statistics = result.computation.statistics;
    if (statistics !== undefined) {
      fields["x-bytes-read"] = String(statistics.bytesRead);
      fields["x-rows-read"] = String(statistics.rowsRead);
    }
    fieldsByComputation.set(result.computation, fields);
  }
  return fields;
}

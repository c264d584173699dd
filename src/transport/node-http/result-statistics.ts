// What the warehouse's query of a result cost, as every transport names it (docs/usage-accounting.md).
import type { EndpointResult } from "../../endpoints/index.js";

/** The warehouse's time of the query that made `result`: its own `elapsed` when it reported one, else the time measured. */
function warehouseMsOf(result: EndpointResult): number {
  const computation = result.computation;
  return computation.statistics?.elapsedMs ?? computation.warehouseMs;
}

// Made once per computation: every hit of a cached result names the same warehouse time.
const timingByComputation = new WeakMap<object, string>();

/** `warehouse;dur=…` of the query that made `result`, the same string for every hit of it. */
export function warehouseTimingOf(result: EndpointResult): string {
  let timing = timingByComputation.get(result.computation);
  if (timing === undefined) {
    timing = `warehouse;dur=${warehouseMsOf(result).toFixed(3)}`;
    timingByComputation.set(result.computation, timing);
  }
  return timing;
}

/**
 * Sets `x-rows-read`, `x-bytes-read` (when the warehouse reported them) and
 * `server-timing: warehouse;dur=…` on `fields`, response headers or trailers
 * alike, in the sorted order connect-node writes its own.
 */
export function setStatisticsFields(fields: Record<string, string | number>, result: EndpointResult): void {
  fields["server-timing"] = warehouseTimingOf(result);
  const statistics = result.computation.statistics;
  if (statistics === undefined) return;
  fields["x-bytes-read"] = String(statistics.bytesRead);
  fields["x-rows-read"] = String(statistics.rowsRead);
}

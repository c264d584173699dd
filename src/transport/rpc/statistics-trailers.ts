// The warehouse statistics of an RPC answer: response headers on Connect,
// trailers on gRPC and gRPC-Web (docs/usage-accounting.md), named and
// ordered as connect-node writes what a handler sets (sorted by name).
import type { EndpointResult } from "../../endpoints/index.js";
import { setStatisticsFields } from "../node-http/index.js";
import { frame, trailerFlag } from "./envelope-frame.js";

/** Server-Timing, X-Bytes-Read and X-Rows-Read of a result, sorted by name. */
export type StatisticsFields = Record<string, string>;

// Made once per computation: every hit of a cached result carries the same fields, and gRPC-Web the same frame.
const fieldsByComputation = new WeakMap<object, StatisticsFields>();
const framesByFields = new WeakMap<StatisticsFields, Buffer>();

/** The fields of `result`'s statistics, in the order connect-node writes them; one object per computation, not to be changed. */
export function statisticsFieldsOf(result: EndpointResult): StatisticsFields {
  let fields = fieldsByComputation.get(result.computation);
  if (fields === undefined) {
    fields = {};
    setStatisticsFields(fields, result);
    fieldsByComputation.set(result.computation, fields);
  }
  return fields;
}

/** Sets `result`'s statistics on a handler's headers (Connect) or trailers (gRPC, gRPC-Web). */
export function setStatistics(target: Headers, result: EndpointResult): void {
  for (const [name, value] of Object.entries(statisticsFieldsOf(result))) target.set(name, value);
}

/** gRPC's trailers of a success carrying `fields`. */
export function grpcOkTrailersWith(fields: StatisticsFields): Record<string, string> {
  return { "grpc-status": "0", ...fields };
}

/** gRPC-Web's trailer frame of a success carrying `fields`: flags 0x80, length, then the lines. */
export function grpcWebOkTrailerWith(fields: StatisticsFields): Buffer {
  const made = framesByFields.get(fields);
  if (made !== undefined) return made;
  let lines = "grpc-status: 0\r\n";
  for (const name in fields) lines += `${name}: ${fields[name]}\r\n`;
  const trailer = frame(trailerFlag, Buffer.from(lines));
  framesByFields.set(fields, trailer);
  return trailer;
}

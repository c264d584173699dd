// The warehouse statistics of an RPC answer: response headers on Connect,
// trailers on gRPC and gRPC-Web (docs/usage-accounting.md), named and
// ordered as connect-node writes what a handler sets (sorted by name), and
// the success trailers of the fast path carrying them, made by the
// protocols' own modules (protocol-grpc.ts, protocol-grpc-web.ts).
import type { EndpointResult } from "../../endpoints/index.js";
import { setStatisticsFields } from "../node-http/index.js";
import { grpcStatusFields } from "./protocol-grpc.js";
import { grpcWebTrailerFrame } from "./protocol-grpc-web.js";

/** Server-Timing, X-Bytes-Read and X-Rows-Read of a result, sorted by name. */
export type StatisticsFields = Record<string, string>;

// Made once per computation: every hit of a cached result carries the same fields, and gRPC-Web the same frame.
const fieldsByComputation = new WeakMap<object, StatisticsFields>();
const framesByFields = new WeakMap<StatisticsFields, Buffer>();
const grpcOk = grpcStatusFields(undefined);

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
  return { ...grpcOk, ...fields };
}

/** gRPC-Web's trailer frame of a success carrying `fields`. */
export function grpcWebOkTrailerWith(fields: StatisticsFields): Buffer {
  const made = framesByFields.get(fields);
  if (made !== undefined) return made;
  const frame = grpcWebTrailerFrame(grpcOkTrailersWith(fields));
  const trailer = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
  framesByFields.set(fields, trailer);
  return trailer;
}

// The warehouse statistics of an RPC answer: response headers on Connect,
// trailers on gRPC and gRPC-Web (docs/usage-accounting.md), named and
// ordered as connect-node writes what a handler sets (sorted by name).
import type { EndpointResult } from "../../endpoints/index.js";
import { setStatisticsFields } from "../node-http/index.js";

/** Server-Timing, X-Bytes-Read and X-Rows-Read of a result, sorted by name. */
export type StatisticsFields = Record<string, string>;

/** The fields of `result`'s statistics, in the order connect-node writes them. */
export function statisticsFieldsOf(result: EndpointResult): StatisticsFields {
  const fields: StatisticsFields = {};
  setStatisticsFields(fields, result);
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
  let lines = "grpc-status: 0\r\n";
  for (const name in fields) lines += `${name}: ${fields[name]}\r\n`;
  const text = Buffer.from(lines);
  const frame = Buffer.alloc(5 + text.length);
  frame.writeUInt8(0x80, 0);
  frame.writeUInt32BE(text.length, 1);
  text.copy(frame, 5);
  return frame;
}

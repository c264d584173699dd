// gRPC's status fields, as connect-node's router writes them (connect's own
// setTrailerStatus): `grpc-status`, the percent-encoded `grpc-message`,
// `grpc-status-details-bin` when the error has details, and the error's
// metadata (`retry-after`, `x-request-id`…). gRPC sends them as trailers,
// or alone as the headers of a trailers-only answer; gRPC-Web likewise, or
// in its trailer frame (protocol-grpc-web.ts).
import type { ConnectError } from "@connectrpc/connect";
import { setTrailerStatus } from "./connect-internals.js";

/** The status fields of `error` (or of a success, `grpc-status: 0`), by lowercase name. */
export function grpcStatusFields(error: ConnectError | undefined): Record<string, string> {
  const fields: Record<string, string> = {};
  setTrailerStatus(new Headers(), error).forEach((value, name) => {
    fields[name] = value;
  });
  return fields;
}

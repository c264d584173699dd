// gRPC's status fields as connect-node's router writes them (setTrailerStatus): status, percent-encoded message,
// details and the error's metadata, sent as trailers or as a trailers-only answer's headers.
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

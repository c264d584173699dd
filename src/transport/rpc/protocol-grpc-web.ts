// gRPC-Web's trailer frame as connect-node's router writes it: trailers as HTTP/1 header lines, flagged 0x80.
import { encodeEnvelope, trailerFlag, trailerSerialize } from "./connect-internals.js";

/** The trailer frame carrying `fields`. */
export function grpcWebTrailerFrame(fields: Record<string, string>): Uint8Array {
  return encodeEnvelope(trailerFlag, trailerSerialize(new Headers(fields)));
}

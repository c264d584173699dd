// gRPC-Web's trailer frame, as connect-node's router writes it: the status
// fields (protocol-grpc.ts) and any other trailers as HTTP/1 header lines,
// in an envelope flagged 0x80, after the messages in the body.
import { encodeEnvelope, trailerFlag, trailerSerialize } from "./connect-internals.js";

/** The trailer frame carrying `fields`. */
export function grpcWebTrailerFrame(fields: Record<string, string>): Uint8Array {
  return encodeEnvelope(trailerFlag, trailerSerialize(new Headers(fields)));
}

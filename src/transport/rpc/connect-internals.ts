// The functions of @connectrpc/connect it marks private (no semver), in one place, used by the router and every
// answer written outside it alike; test/unit/connect-internals.test.ts pins each, so an upgrade fails there first.
export {
  type Compression,
  compressedFlag,
  compressionNegotiate,
  createMethodSerializationLookup,
  encodeEnvelope,
} from "@connectrpc/connect/protocol";
export {
  codeToHttpStatus,
  endStreamFlag,
  endStreamToJson,
  errorToJsonBytes,
  parseContentType as parseConnectContentType,
  parseTimeout as parseConnectTimeout,
} from "@connectrpc/connect/protocol-connect";
export {
  parseContentType as parseGrpcContentType,
  parseTimeout,
  setTrailerStatus,
} from "@connectrpc/connect/protocol-grpc";
export {
  parseContentType as parseGrpcWebContentType,
  trailerFlag,
  trailerSerialize,
} from "@connectrpc/connect/protocol-grpc-web";

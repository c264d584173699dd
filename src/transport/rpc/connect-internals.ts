// The functions of @connectrpc/connect that it marks private (they do not
// follow semantic versioning), in one place: the router writes its answers
// with them, so every answer written outside the router uses the same ones.
// test/unit/connect-internals.test.ts pins what each does, so an upgrade
// that changes one fails there first.
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

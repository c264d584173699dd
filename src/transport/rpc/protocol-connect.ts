// The Connect protocol's error answers as connect-node's router writes them: a unary JSON error, or the
// end-of-stream message of a streaming call.
import type { ConnectError } from "@connectrpc/connect";
import {
  codeToHttpStatus,
  encodeEnvelope,
  endStreamFlag,
  endStreamToJson,
  errorToJsonBytes,
} from "./connect-internals.js";

/** A unary call's error answer: HTTP status, the error's metadata as headers, the JSON body. */
export function connectUnaryError(error: ConnectError): {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
} {
  const headers: Record<string, string> = {};
  error.metadata.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: codeToHttpStatus(error.code), headers, body: errorToJsonBytes(error, undefined) };
}

/** A streaming call's end-of-stream message carrying `error`. */
export function connectEndStream(error: ConnectError): Uint8Array {
  // No trailers of its own: the error's metadata goes in as connect puts it.
  const json = endStreamToJson(new Headers(), error, undefined);
  return encodeEnvelope(endStreamFlag, new TextEncoder().encode(JSON.stringify(json)));
}

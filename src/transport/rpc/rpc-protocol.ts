// The one classifier of RPC requests, with connect-node's own parsers so that the gate agrees with the router.
import {
  parseConnectContentType as parseConnectType,
  parseGrpcContentType as parseGrpcType,
  parseGrpcWebContentType as parseGrpcWebType,
} from "./connect-internals.js";
import { createBoundedMemo } from "../../collections/index.js";
import { queryOf } from "../call/index.js";

/** A call's protocol as the logs and metrics name it. */
export type CallProtocol = "grpc" | "grpc-web" | "connect";

/** A request's protocol, Connect's streaming form apart (its errors are written as an end-of-stream frame). */
export type RpcProtocol = CallProtocol | "connect-stream";

/** What a content type says: the protocol, Protobuf binary or JSON, gRPC-Web text, Connect streaming. */
export interface RpcContentType {
  protocol: CallProtocol;
  binary: boolean;
  text: boolean;
  stream: boolean;
}

/** Distinct content types whose reading is kept (collections/bounded-memo.ts): a lookup costs less than a parse. */
const memoSize = 64;

/** What a content type says, as connect-node's three protocols read it; undefined for none of them. */
export const rpcContentTypeOf = createBoundedMemo((contentType: string): RpcContentType | undefined => {
  const grpc = parseGrpcType(contentType);
  if (grpc !== undefined) return { protocol: "grpc", binary: grpc.binary, text: false, stream: false };
  const grpcWeb = parseGrpcWebType(contentType);
  if (grpcWeb !== undefined) return { protocol: "grpc-web", binary: grpcWeb.binary, text: grpcWeb.text, stream: false };
  const connect = parseConnectType(contentType);
  if (connect !== undefined)
    return { protocol: "connect", binary: connect.binary, text: false, stream: connect.stream };
  return undefined;
}, memoSize);

/** The RPC protocol a request speaks, judged from its method, content type and query; undefined for plain HTTP. */
export function rpcProtocolOf(
  method: string | undefined,
  contentType: string | undefined,
  url: string,
): RpcProtocol | undefined {
  const type = contentType === undefined ? undefined : rpcContentTypeOf(contentType);
  if (type !== undefined && type.protocol !== "connect") return type.protocol;
  if (method === "POST" && type !== undefined) return type.stream ? "connect-stream" : "connect";
  if (method === "GET" && /(^|&)connect=v1(&|$)/.test(queryOf(url))) return "connect";
  return undefined;
}

/** The name of a request's protocol in logs and metrics: Connect for its streaming form and for a GET without `connect=v1`. */
export function callProtocolOf(protocol: RpcProtocol | undefined): CallProtocol {
  return protocol === undefined || protocol === "connect-stream" ? "connect" : protocol;
}

// The cache-hit calls the bench makes, one per protocol: the same saved query
// (functions.invocation-stats of one demo project, interval 1hr) asked as a
// GET over HTTP/1.1 and h2c, and as a gRPC, gRPC-Web and Connect (JSON and
// binary) call, each with the connections and streams a load tester would use.
import { create, toBinary, toJsonString } from "@bufbuild/protobuf";
import { FunctionsService, GetInvocationStatsRequestSchema } from "../src/gen/functions/v1/functions_pb.js";

export interface Protocol {
  /** Key of its figures in latest.json. */
  id: string;
  /** Its name in the table. */
  label: string;
  http: "1.1" | "2";
  /** Connections, and streams in flight on each (HTTP/2). */
  clients: number;
  streams: number;
  method: "GET" | "POST";
  /** Path and query. */
  path: string;
  /** Request headers besides the API key. */
  headers: Record<string, string>;
  /** The request body of a POST. */
  body?: Buffer;
  /** The least ratio of the bare server's CPU a call to the service's that meets the goal (GET 0.8, RPC 0.7). */
  goal: number;
}

/** A message in gRPC's and gRPC-Web's framing: a flag byte (0, not compressed), its length (4 bytes, big-endian), itself. */
export function lengthPrefixed(message: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/** The protocols of the cache-hit section, for `project`. */
export function cacheHitProtocols(project: string): Protocol[] {
  const request = create(GetInvocationStatsRequestSchema, { project, interval: "1hr" });
  const binary = toBinary(GetInvocationStatsRequestSchema, request);
  const rpcPath = `/${FunctionsService.typeName}/${FunctionsService.method.getInvocationStats.name}`;
  const get = {
    method: "GET",
    path: `/api/endpoints/functions.invocation-stats?project=${project}&interval=1hr`,
    headers: {},
    streams: 1,
  } as const;
  const rpc = { method: "POST", path: rpcPath, streams: 1 } as const;
  const grpc = {
    ...rpc,
    http: "2",
    headers: { "content-type": "application/grpc", te: "trailers" },
    body: lengthPrefixed(binary),
    goal: 0.7,
  } as const;
  return [
    { ...get, id: "getHttp1", label: "GET over HTTP/1.1", http: "1.1", clients: 64, goal: 0.8 },
    { ...get, id: "getH2c", label: "GET over h2c", http: "2", clients: 64, goal: 0.8 },
    { ...grpc, id: "grpc", label: "gRPC (h2c)", clients: 64 },
    { ...grpc, id: "grpcStreams", label: "gRPC (h2c), 8 streams a connection", clients: 8, streams: 8 },
    {
      ...rpc,
      id: "grpcWeb",
      label: "gRPC-Web over HTTP/1.1",
      http: "1.1",
      clients: 32,
      headers: { "content-type": "application/grpc-web+proto" },
      body: lengthPrefixed(binary),
      goal: 0.7,
    },
    {
      ...rpc,
      id: "connectJson",
      label: "Connect JSON over HTTP/1.1",
      http: "1.1",
      clients: 32,
      headers: { "content-type": "application/json" },
      body: Buffer.from(toJsonString(GetInvocationStatsRequestSchema, request)),
      goal: 0.7,
    },
    {
      ...rpc,
      id: "connectBinary",
      label: "Connect binary over HTTP/1.1",
      http: "1.1",
      clients: 32,
      headers: { "content-type": "application/proto" },
      body: Buffer.from(binary),
      goal: 0.7,
    },
  ];
}

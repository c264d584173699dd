// Transport: one port for HTTP/1.1 and h2c, CORS in front of every route;
// behind it the plain HTTP routes (GET API and explorer, http/) and the
// Connect, gRPC and gRPC-Web stack (rpc-stack.ts, rpc/, grpc/), both on the
// Node HTTP helpers of node-http/.
export { createSinglePortServer } from "./single-port-server.js";
export type { SinglePortServer, SinglePortServerOptions } from "./single-port-server.js";
export { clientAddress, trustedProxies } from "./node-http/client-address.js";
export type { TrustedProxies } from "./node-http/client-address.js";
export { createRpcStack } from "./rpc-stack.js";
export {
  createHttpRoutes,
  createKeylessLimit,
  createMetricsRoutes,
  withExplorer,
} from "./http/index.js";
export { createReadinessPoller, unimplementedMessage } from "./grpc/index.js";
export { loggingInterceptor, rpcProtocolOf } from "./rpc/index.js";
export type { RevocableKeys } from "./node-http/index.js";
export { createWatchRevocation, createWatchSessions } from "./node-http/index.js";
export { codeName, createRecordCall, createCallRouter, isHttpRoute, isKeyedProcedure } from "./node-http/index.js";
export type { CallHandler, RequestHandler, StreamHandler } from "./node-http/index.js";
export { withCors, withCorsStreams } from "./cors.js";
export { recordCallOutcome, traceCalls } from "./trace-calls.js";
export type { CorsOrigins } from "./cors.js";

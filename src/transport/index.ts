// Transport: one port for HTTP/1.1 and h2c; behind it the plain HTTP routes
// (GET API, http/) and the Connect, gRPC and gRPC-Web stack (rpc-stack.ts,
// rpc/, grpc/), both on the Node HTTP helpers of node-http/.
export { createSinglePortServer } from "./single-port-server.js";
export type { SinglePortServer, SinglePortServerOptions } from "./single-port-server.js";
export { clientAddress, trustedProxies } from "./client-address.js";
export type { TrustedProxies } from "./client-address.js";
export { createRpcStack } from "./rpc-stack.js";
export { createHttpRoutes, isHttpRoute } from "./http/index.js";
export { createReadinessPoller, unimplementedMessage } from "./grpc/index.js";
export { loggingInterceptor, percentEncoded, rpcProtocolOf } from "./rpc/index.js";
export { codeName } from "./node-http/index.js";
export type { RequestHandler } from "./node-http/index.js";
export { withCors, corsAllowedHeaders, corsAllowedMethods, corsExposedHeaders } from "./cors.js";
export type { CorsOptions, CorsOrigins } from "./cors.js";
export { withExplorer, explorerContentSecurityPolicy } from "./http/index.js";
export type { ExplorerPageOptions } from "./http/index.js";

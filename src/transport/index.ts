// Transport: one port for HTTP/1.1 and h2c, Connect/gRPC/gRPC-Web routes,
// plain HTTP routes, and the per-call interceptors.
export { createSinglePortServer, defaultConnectionLimits } from "./single-port-server.js";
export type { SinglePortServer, SinglePortServerOptions, RequestHandler } from "./single-port-server.js";
export { clientAddress, trustedProxies, trustedProxyProblem } from "./client-address.js";
export type { TrustedProxies } from "./client-address.js";
export { connectRoutes } from "./connect-routes.js";
export type { ConnectRoutesOptions } from "./connect-routes.js";
export { loggingInterceptor } from "./logging-interceptor.js";
export type { CallObserver, LoggingInterceptorOptions } from "./logging-interceptor.js";
export { requestIdKey, requestIdFrom } from "./request-context.js";
export { createRpcGate, credentialKey } from "./rpc-gate.js";
export type { RpcGate, RpcGateOptions } from "./rpc-gate.js";
export { sendRpcError, rpcProtocolOf, bodyTooLarge, percentEncoded } from "./rpc-error-response.js";
export type { RpcProtocol } from "./rpc-error-response.js";
export { withCors, corsAllowedHeaders, corsAllowedMethods, corsExposedHeaders } from "./cors.js";
export type { CorsOptions, CorsOrigins } from "./cors.js";
export * from "./http/index.js";
export * from "./grpc/index.js";

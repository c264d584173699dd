// The RPC stack's parts: the gate in front of the Connect router, the saved
// queries as Connect routes, the per-call logging interceptor, and errors
// answered in a call's own protocol without the router.
export { createRpcGate } from "./rpc-gate.js";
export { connectRoutes } from "./connect-routes.js";
export { loggingInterceptor } from "./logging-interceptor.js";
export { percentEncoded, rpcProtocolOf, sendRpcError } from "./rpc-error-response.js";

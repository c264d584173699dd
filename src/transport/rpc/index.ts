// The RPC stack's parts: the gate in front of the rest, the fast path of
// cache hits, the Connect router
// with the saved queries and their watch streams as its routes, the per-call
// log, and errors answered in a call's own protocol without the router.
export { createRecordRefusedRpc, createRpcGate, type KeylessRpcLimit } from "./rpc-gate.js";
export { callOf, recordingInterceptor, routerContextFor } from "./router-context.js";
export { connectRoutes } from "./connect-routes.js";
export { createCallLines, loggingInterceptor } from "./logging-interceptor.js";
export type { CallObserver } from "./logging-interceptor.js";
export { createConnectRouterHandler } from "./connect-router.js";
export { createMessageEncodings } from "./message-encodings.js";
export { createUnaryFastPath } from "./unary-fast-path.js";
export { replayedBody, type ReadBody } from "./request-body.js";
export { sendRpcError } from "./rpc-error-response.js";
export { rpcProtocolOf } from "./rpc-protocol.js";
export { watchRoutes } from "./watch-routes.js";
export { createWatchStreamPath } from "./watch-stream-path.js";

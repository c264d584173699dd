// The RPC stack's parts: the gate, the fast path of hits, the Connect router and its routes, the call log lines.
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

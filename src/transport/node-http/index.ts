// Node HTTP helpers below both the GET routes (transport/http) and the RPC
// stack (transport/rpc): the typed request and response, header reading, the
// request id, code -> HTTP status, and the 500 of a handler that threw.
export { handlerThrew, pathOf } from "./request-handler.js";
export type { HttpRequest, HttpResponse, RequestHandler } from "./request-handler.js";
export { hasBody, headersOf } from "./request-headers.js";
export { requestIdFrom } from "./request-id.js";
export { codeName, httpStatusFromCode } from "./http-status.js";

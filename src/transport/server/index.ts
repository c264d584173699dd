// The parts of the one port single-port-server.ts assembles: the servers of
// each protocol and the sniffing that chooses between them, the bounds on
// connections, HTTP/2 streams, requests, idle sessions and unread responses,
// and the graceful close.
export { capConnections } from "./connection-caps.js";
export type { ConnectionCaps, ConnectionCapsOptions } from "./connection-caps.js";
export { closeGracefully } from "./graceful-close.js";
export type { PortParts } from "./graceful-close.js";
export { headerListPastBound, refuseHeaderList } from "./header-list-bound.js";
export { http1Server, http2Server } from "./http-servers.js";
export type { Http1ServerOptions, Http2ServerOptions } from "./http-servers.js";
export { refusedStreams } from "./refused-streams.js";
export type { RefusedStreams } from "./refused-streams.js";
export { sniffProtocol } from "./protocol-sniffing.js";
export type { ProtocolSniffing } from "./protocol-sniffing.js";
export { timeRequests } from "./request-timeouts.js";
export type { RequestTimeouts, RequestTimer } from "./request-timeouts.js";
export { idleSessions } from "./session-idle.js";
export type { SessionIdle, SessionIdleOptions, SessionIdling } from "./session-idle.js";
export { budgetStreams } from "./stream-budget.js";
export type { AddressStreams, StreamBudget, StreamBudgetOptions } from "./stream-budget.js";
export { boundUnreadResponses } from "./unread-responses.js";
export type { UnreadResponses, UnreadResponsesOptions } from "./unread-responses.js";

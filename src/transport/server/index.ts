// The parts of the one port single-port-server.ts assembles.
export { capConnections } from "./connection-caps.js";
export { closeGracefully } from "./graceful-close.js";
export { http1Server, http2Server, maxHeaderSize, sniffProtocol } from "./http-servers.js";
export { headerListPastBound, refuseHeaderList, refusedStreams } from "./refused-streams.js";
export { timeRequests } from "./request-timeouts.js";
export { idleSessions } from "./session-idle.js";
export { budgetStreams } from "./stream-budget.js";
export { boundUnreadResponses } from "./unread-responses.js";

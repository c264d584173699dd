// gRPC infrastructure beside the saved queries: server reflection, the health
// protocol, and UNIMPLEMENTED for calls of anything not served.
export { createServerReflection, serverReflectionServices } from "./server-reflection.js";
export { createHealthService } from "./health-service.js";
export { createReadinessPoller } from "./readiness-poller.js";
export { createUnimplementedFallback, unimplementedMessage } from "./unimplemented.js";

// gRPC beside the saved queries: reflection, health, and UNIMPLEMENTED for anything not served.
export { createServerReflection, serverReflectionServices } from "./server-reflection.js";
export { createHealthService } from "./health-service.js";
export { createReadinessPoller } from "./readiness-poller.js";
export { createUnimplementedFallback, unimplementedMessage } from "./unimplemented.js";

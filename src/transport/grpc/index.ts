// gRPC beside the saved queries: reflection, health, and UNIMPLEMENTED for anything not served.
export { createServerReflection, serverReflectionServices } from "./server-reflection.js";
export { createHealthService, createReadinessPoller } from "./health-service.js";
export { createUnimplementedFallback, unimplementedMessage } from "./unimplemented.js";

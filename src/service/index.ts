// The service as a process: started from its configuration (the warehouse,
// its schema, the app, the port) and stopped cleanly.
export { startService } from "./lifecycle.js";
export type { RunningService } from "./lifecycle.js";

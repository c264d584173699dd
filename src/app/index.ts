// The application: composition root and process lifecycle.
export { createApp } from "./create-app.js";
export type { App, AppOptions } from "./create-app.js";
export { startService } from "./lifecycle.js";
export type { RunningService } from "./lifecycle.js";

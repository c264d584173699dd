// The composition root: the stages wired into one request handler.
export { createApp } from "./create-app.js";
export type { App, AppOptions } from "./app-options.js";

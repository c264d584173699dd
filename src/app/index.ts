// The composition root: the stages wired into one request handler.
export { createApp } from "./create-app.js";
export type { App, AppOptions } from "./create-app.js";

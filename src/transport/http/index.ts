// The GET API and the plain HTTP routes beside Connect, and the explorer page.
export { createHttpRoutes } from "./http-routes.js";
export { withExplorer } from "./explorer-page.js";
export { createKeylessLimit } from "./keyless-limit.js";
export type { KeylessLimit } from "./keyless-limit.js";
export { sendError } from "./error-body.js";
export { createMetricsRoutes } from "./operator-routes.js";
export { sendEmpty } from "./respond.js";

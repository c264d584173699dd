// The GET API and the plain HTTP routes beside Connect.
export { createHttpRoutes, isHttpRoute } from "./http-routes.js";
export type { HttpRoutesOptions } from "./http-routes.js";
export { httpStatusFromCode, codeName } from "./http-status.js";
export { errorResponse } from "./error-body.js";
export { requestFromQueryString } from "./query-string.js";
export { endpointListing } from "./endpoint-listing.js";
export { openApiDocument } from "./openapi.js";
export { withExplorer, explorerContentSecurityPolicy } from "./explorer-page.js";
export type { ExplorerPageOptions } from "./explorer-page.js";
export { createKeylessLimit } from "./keyless-limit.js";
export type { KeylessKind, KeylessLimit, KeylessLimitOptions } from "./keyless-limit.js";
export { createMetricsRoutes } from "./metrics-routes.js";
export type { MetricsRoutesOptions } from "./metrics-routes.js";

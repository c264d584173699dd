// The endpoint registry: saved queries read from the Protobuf services, their
// parameter rules, and the service that runs one for any transport.
export { savedQueryServices } from "./services.js";
export { createEndpointRegistry, defaultMaxParameterLength } from "./registry.js";
export type { Endpoint, EndpointRegistry, EndpointRegistryOptions, ParameterSpec } from "./registry.js";
export { bindParameters } from "./parameters.js";
export type { BoundParameters } from "./parameters.js";
export { readIsoTimestamp, isoTimestampProblems } from "./iso-timestamp.js";
export type { IsoTimestampReading } from "./iso-timestamp.js";
export { rowMessageFromWarehouse, timestampFromIso } from "./row-message.js";
export { createEndpointService } from "./endpoint-service.js";
export type {
  EndpointService,
  EndpointServiceOptions,
  EndpointResult,
  PreparedCall,
  ComputedResponse,
  CallContext,
} from "./endpoint-service.js";
export { endpointTables } from "./endpoint-docs.js";
export { responseJsonBytes } from "./response-json.js";
export { resultColumnProblems } from "./result-columns.js";
export { applyScope } from "./scope.js";
export type { Scope } from "./scope.js";

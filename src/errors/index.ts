// Errors shared by every stage: ConnectError with a Code, and field violations.
export { invalidArgument, fieldViolationsOf } from "./field-violations.js";
export type { FieldViolation } from "./field-violations.js";
export { causeChain } from "./cause-chain.js";
export { abortedCallError, callerGoneError, deadlineError, isDeadline, queryCallEndedError } from "./call-ended.js";
export { isWarehouseOutage, overloadError, WarehouseOverload } from "./warehouse-outage.js";

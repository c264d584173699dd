// The query executor: saved query + parameters in, capped rows or a ConnectError out.
export { createQueryExecutor, defaultQueryTimeoutMs } from "./query-executor.js";
export type { ExecuteOptions, QueryExecutor, QueryExecutorOptions, Truncation } from "./query-executor.js";
export type { QueryParamValue, SavedQuery, WarehouseRow } from "./saved-query.js";
export type { QueryStatistics } from "./query-statistics.js";
export { createQueryTuning } from "./query-tuning.js";
export { deadlineSignal } from "./deadline-signal.js";
export { withEmptyAnswers } from "./empty-answers.js";
export { estimatePastReadLimit, readLimitError } from "./read-limits.js";
export { createQueryEstimator, estimateOf } from "./query-estimator.js";
export { createFailFastGate, defaultUnreachableCooldownMs } from "./fail-fast.js";
export type { FailFastGate, FailFastGateOptions } from "./fail-fast.js";
export type { QueryEstimate, QueryEstimator, QueryEstimatorOptions } from "./query-estimator.js";
export type { ReadLimit, ReadLimitName, ReadLimits, ReadLimitSource, ReadLimitValues } from "./read-limits.js";

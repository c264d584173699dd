// The query executor: saved query + parameters in, capped rows or a ConnectError out.
export { createQueryExecutor, defaultQueryTimeoutMs } from "./query-executor.js";
export type {
  SavedQuery,
  QueryParamValue,
  WarehouseRow,
  ExecuteOptions,
  QueryResult,
  QueryObserver,
  QueryExecutor,
  QueryExecutorOptions,
} from "./query-executor.js";
export { connectErrorFromClickHouse, unavailableRetryAfterSeconds } from "./clickhouse-error.js";
export type { ClickHouseErrorContext } from "./clickhouse-error.js";
export { createQueryTuning, tunedNow } from "./query-tuning.js";
export type { QueryTuning, QueryTuningOptions } from "./query-tuning.js";
export { statisticsFromHeaders } from "./query-statistics.js";
export type { QueryStatistics } from "./query-statistics.js";
export { deadlineSignal } from "./deadline-signal.js";
export type { DeadlineSignal } from "./deadline-signal.js";
export { createAdmission, defaultAdmission } from "./admission.js";
export type { Admission, AdmissionOptions } from "./admission.js";

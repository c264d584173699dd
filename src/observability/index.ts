// Cross-cutting: logging and the clock.
export { createLogger, silentLogger, logLevels, defaultLogLevel } from "./logger.js";
export type { Logger, LogLevel } from "./logger.js";
export { systemClock, fixedClock } from "./clock.js";
export type { Clock } from "./clock.js";
export { createMetrics } from "./metrics.js";
export type { Metrics } from "./metrics.js";

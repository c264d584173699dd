// Structured JSON logs, one object a line, to stderr by default.
import { logValue } from "./log-value.js";

/** The levels, lowest first. */
export const logLevels = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof logLevels)[number];

/** The lowest level written when the options do not say. */
export const defaultLogLevel: LogLevel = "info";

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger that adds these fields to every line (a request id, say). */
  child(fields: Record<string, unknown>): Logger;
  /** Whether lines of `level` are written: spares building the fields of a line that would be dropped. */
  enabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  /** Lowest level written. Default `info`. */
  level?: LogLevel;
  /** Where lines go. Default: `process.stderr`. */
  write?: (line: string) => void;
  /** Time source for the `time` field. Default `Date.now`. */
  now?: () => number;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * Creates a JSON-lines logger. Error values anywhere in the fields are written
 * with their name, message, code, stack and cause chain (log-value.ts).
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const min = rank[options.level ?? defaultLogLevel];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const now = options.now ?? Date.now;
  const make = (bound: Record<string, unknown>): Logger => {
    const log = (level: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
      if (rank[level] < min) return;
      const record = { time: new Date(now()).toISOString(), level, msg, ...bound, ...fields };
      write(`${JSON.stringify(logValue(record))}\n`);
    };
    return {
      debug: log("debug"),
      info: log("info"),
      warn: log("warn"),
      error: log("error"),
      child: (fields) => make({ ...bound, ...fields }),
      enabled: (level) => rank[level] >= min,
    };
  };
  return make({});
}

/** A logger that drops everything, for tests and tools. */
export const silentLogger: Logger = createLogger({ write: () => {} });

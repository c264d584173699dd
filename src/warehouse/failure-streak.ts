// A failure that repeats on every retry (a warehouse tried again every few
// seconds) is said once, not on every try: at warn with its error the first
// time, then at debug with a count while it stays the same failure, at warn
// again when the failure changes, and the end of the streak is the caller's
// one line at info (docs/reliability.md, "Outages and shutdown").
import { causeChain } from "../errors/index.js";
import type { Logger } from "../observability/index.js";

export interface FailedTry {
  msg: string;
  fields?: Record<string, unknown>;
  /** Write the error, with its stack, in the warn line. Default true. */
  withError?: boolean;
  /** Another part of the service has already logged this failure: only a debug line here. Default false. */
  reportedElsewhere?: boolean;
}

export interface FailureStreak {
  /** Tries failed since the streak began. */
  readonly failures: number;
  /** Logs a failed try, at warn only when it is not the same failure as the last one. */
  failed(error: unknown, line: FailedTry): void;
  /** Ends the streak (a try succeeded); returns how many tries had failed in it. */
  end(): number;
}

export function createFailureStreak(logger: Logger): FailureStreak {
  let failures = 0;
  let lastFailure: string | undefined;
  return {
    get failures() {
      return failures;
    },
    failed(error, line) {
      failures += 1;
      const failure = describeFailure(error);
      const repeated = failure === lastFailure;
      lastFailure = failure;
      if (repeated || line.reportedElsewhere === true) {
        logger.debug(line.msg, { ...line.fields, failures, error: failure });
      } else {
        logger.warn(line.msg, line.withError === false ? { ...line.fields } : { ...line.fields, error });
      }
    },
    end() {
      const ended = failures;
      failures = 0;
      lastFailure = undefined;
      return ended;
    },
  };
}

/** What failed, in one line: the name and message of the error and of each of its causes. */
export function describeFailure(error: unknown): string {
  return causeChain(error)
    .map((e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e)))
    .join("; caused by ");
}

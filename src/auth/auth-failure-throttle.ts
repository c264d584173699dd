// Failed authentications, counted per client address: past a bound the
// address is refused with RESOURCE_EXHAUSTED before its key is even looked
// at, so keys cannot be guessed at line speed; and the failures are logged as
// at most one summary line a second, never one line each.
import { Code, ConnectError } from "@connectrpc/connect";
import { addressKey } from "../network/index.js";
import { type Clock, type Logger, silentLogger } from "../observability/index.js";
import { createTokenBuckets } from "./token-buckets.js";

export interface AuthFailureThrottleOptions {
  /** Failures an address may add a second, sustained; 0 turns the throttle off. Default 1. */
  perSecond?: number;
  /** Failures an address may make in a row before it is refused. Default 20. */
  burst?: number;
  /** Default: the system clock. */
  clock?: Clock;
  /** Where the summary lines go. Default: silent. */
  logger?: Logger;
  /** How often the summary is written while there are failures. Default 1000 ms. */
  summaryIntervalMs?: number;
}

export interface AuthFailureThrottle {
  /** Throws RESOURCE_EXHAUSTED with Retry-After while `address` is over its bound. */
  check(address: string): void;
  /** Counts one failed authentication of `address`. */
  fail(address: string): void;
  /**
   * Takes a failure's place for a check that ends later (a token's first
   * verification), so that many checks at once cannot all start before the
   * first failure is counted; `settle` says how it ended.
   */
  reserve(address: string): void;
  /** Ends a reserved check: a failure is counted as one, a success gives the place back. */
  settle(address: string, failed: boolean): void;
  /** Stops the summary timer (writing what is pending). */
  close(): void;
}

/** Failed authentications allowed per client address when the options do not say: a second, and in a row. */
export const defaultAuthFailures = { perSecond: 1, burst: 20 } as const;

export function createAuthFailureThrottle(options: AuthFailureThrottleOptions = {}): AuthFailureThrottle {
  const perSecond = options.perSecond ?? defaultAuthFailures.perSecond;
  const logger = options.logger ?? silentLogger;
  const summaryIntervalMs = options.summaryIntervalMs ?? 1000;
  const buckets =
    perSecond > 0
      ? createTokenBuckets({ perSecond, burst: options.burst ?? defaultAuthFailures.burst, clock: options.clock })
      : undefined;
  /** Failures and refusals since the last summary, by address. */
  let pending = new Map<string, { failures: number; refused: number }>();
  let timer: NodeJS.Timeout | undefined;
  /** Client addresses as counted (IPv6 by its /64), kept so that a call does not split an IPv6 address each time. */
  const counted = new Map<string, string>();
  const countedAs = (client: string) => {
    let address = counted.get(client);
    if (address === undefined) {
      if (counted.size >= 10_000) counted.clear();
      counted.set(client, (address = addressKey(client)));
    }
    return address;
  };

  function count(address: string, field: "failures" | "refused") {
    let entry = pending.get(address);
    if (entry === undefined) {
      // The summary is bounded too: past 1,000 addresses the rest are counted together.
      const key = pending.size < 1000 ? address : "(others)";
      entry = pending.get(key) ?? { failures: 0, refused: 0 };
      pending.set(key, entry);
    }
    entry[field] += 1;
    if (timer === undefined) {
      timer = setInterval(summarise, summaryIntervalMs);
      timer.unref();
    }
  }

  function summarise() {
    if (pending.size === 0) {
      clearInterval(timer);
      timer = undefined;
      return;
    }
    const entries = [...pending.entries()];
    pending = new Map();
    const total = (field: "failures" | "refused") => entries.reduce((sum, [, e]) => sum + e[field], 0);
    const busiest = entries
      .sort(([, a], [, b]) => b.failures + b.refused - (a.failures + a.refused))
      .slice(0, 5)
      .map(([address, e]) => ({ address, ...e }));
    logger.warn("failed authentications", {
      failures: total("failures"),
      refused: total("refused"),
      addresses: entries.length,
      busiest,
    });
  }

  return {
    check(client) {
      const address = countedAs(client);
      // Most calls come from addresses that never failed: one Map lookup, nothing written.
      if (buckets === undefined || !buckets.has(address)) return;
      const retryAfter = buckets.peek(address);
      if (retryAfter === 0) return;
      count(address, "refused");
      const error = new ConnectError(
        "too many failed authentications from this address, try again later",
        Code.ResourceExhausted,
      );
      error.metadata.set("retry-after", String(retryAfter));
      throw error;
    },
    fail(client) {
      const address = countedAs(client);
      buckets?.take(address);
      count(address, "failures");
    },
    reserve(client) {
      buckets?.take(countedAs(client));
    },
    settle(client, failed) {
      const address = countedAs(client);
      if (failed) count(address, "failures");
      else buckets?.giveBack(address);
    },
    close() {
      summarise();
      clearInterval(timer);
      timer = undefined;
    },
  };
}

// Whether the saved queries can be served on the warehouse's schema: the
// migrations are applied (warehouse/schema-keeper.ts) and each saved query's
// result columns fit its row message (endpoints/result-columns.ts), asked of
// the warehouse as soon as the first migration succeeds, at start or later.
// A warehouse that cannot answer the question (a server restarting, say) is
// asked again, backing off like the schema keeper; a mismatch it reports is
// final, since sql/ and proto/ do not change while the service runs
// (docs/reliability.md, "Outages and shutdown").
import { resultColumnProblems, type Endpoint } from "../endpoints/index.js";
import type { Logger } from "../observability/index.js";
import { createFailureStreak, type SchemaKeeper, type WarehouseClient } from "../warehouse/index.js";

export interface SchemaFitOptions {
  logger: Logger;
  /** First wait before asking again a warehouse that could not describe the queries; doubles up to `maxRetryMs`. Default 1000 ms. */
  retryMs?: number;
  /** Default 5,000 ms (`WAREHOUSE_RETRY_SECONDS`). */
  maxRetryMs?: number;
}

export interface SchemaFit {
  /** True once the schema is migrated and every saved query was found to fit. */
  readonly ready: boolean;
  /**
   * The outcome of the first question: the problems found (empty when every
   * saved query fits), or undefined when the warehouse could not describe
   * the queries and is being asked again.
   */
  readonly firstTry: Promise<string[] | undefined>;
  /** The problems found, once the warehouse has described the queries. */
  readonly checked: Promise<string[]>;
  /** Stops asking. */
  stop(): void;
}

export function watchSchemaFit(
  schema: Pick<SchemaKeeper, "done" | "migrated">,
  endpoints: readonly Endpoint[],
  client: Pick<WarehouseClient, "query">,
  options: SchemaFitOptions,
): SchemaFit {
  const { logger } = options;
  const maxWait = options.maxRetryMs ?? 5_000;
  let wait = Math.min(options.retryMs ?? 1000, maxWait);
  const streak = createFailureStreak(logger);
  let fits = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let settleFirstTry!: (problems: string[] | undefined) => void;
  const firstTry = new Promise<string[] | undefined>((resolve) => (settleFirstTry = resolve));

  const checked = new Promise<string[]>((resolve) => {
    const ask = async () => {
      if (stopped) return;
      try {
        const problems = await resultColumnProblems(endpoints, client);
        const failedTries = streak.end();
        if (failedTries > 0) logger.info("the warehouse described the saved queries' results", { failedTries });
        fits = problems.length === 0;
        settleFirstTry(problems);
        resolve(problems);
      } catch (error) {
        settleFirstTry(undefined);
        streak.failed(error, { msg: "the warehouse cannot describe the saved queries' results yet; not ready until it can", fields: { retryInMs: wait } });
        timer = setTimeout(() => void ask(), wait);
        timer.unref();
        wait = Math.min(maxWait, wait * 2);
      }
    };
    void schema.done.then(ask);
  });

  return {
    get ready() {
      return fits && schema.migrated;
    },
    firstTry,
    checked,
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

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
import {
  createFailureStreak,
  retryWithBackoff,
  type Retrying,
  type RetryOptions,
  type SchemaKeeper,
  type WarehouseClient,
} from "../warehouse/index.js";

export interface SchemaFitOptions extends RetryOptions {
  logger: Logger;
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
  const streak = createFailureStreak(logger);
  let fits = false;
  let stopped = false;
  let retrying: Retrying | undefined;
  let settleFirstTry!: (problems: string[] | undefined) => void;
  const firstTry = new Promise<string[] | undefined>((resolve) => (settleFirstTry = resolve));

  const checked = new Promise<string[]>((resolve) => {
    void schema.done.then(() => {
      if (stopped) return;
      retrying = retryWithBackoff(
        async () => {
          const problems = await resultColumnProblems(endpoints, client);
          const failedTries = streak.end();
          if (failedTries > 0) logger.info("the warehouse described the saved queries' results", { failedTries });
          fits = problems.length === 0;
          settleFirstTry(problems);
          resolve(problems);
        },
        (error, retryInMs) => {
          settleFirstTry(undefined);
          streak.failed(error, {
            msg: "the warehouse cannot describe the saved queries' results yet; not ready until it can",
            fields: { retryInMs },
          });
        },
        options,
      );
    });
  });

  return {
    get ready() {
      return fits && schema.migrated;
    },
    firstTry,
    checked,
    stop() {
      stopped = true;
      retrying?.stop();
    },
  };
}

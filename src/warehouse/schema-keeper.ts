// Keeps trying to apply the migrations while a server warehouse is
// unreachable, so that the service can start before its warehouse and
// become ready by itself when the warehouse answers. A failure that repeats
// on every try is logged once (failure-streak.ts), and not at all when the
// embedded engine is what is not open: the reopening client says why.
import { WarehouseClosedError, type WarehouseClient } from "./reopening-client.js";
import type { Logger } from "../observability/index.js";
import { createFailureStreak } from "./failure-streak.js";
import { migrate, type MigrateOptions } from "./migrations.js";
import { retryWithBackoff, type Retrying, type RetryOptions } from "./retry-with-backoff.js";

export interface SchemaKeeper {
  /** True once the migrations have been applied (or were already). */
  readonly migrated: boolean;
  /** Resolves after the first try, whether it applied the migrations or not. */
  readonly firstAttempt: Promise<void>;
  /** Resolves when the migrations are applied. */
  readonly done: Promise<void>;
  stop(): void;
}

export interface SchemaKeeperOptions extends RetryOptions {
  logger: Logger;
  /** Apply on a cluster (see MigrateOptions). Default: a single node. */
  cluster?: MigrateOptions["cluster"];
  /** The call log's TTL in days (see MigrateOptions). Default: left as it is. */
  callLogRetentionDays?: number;
  /** Runs once after the migrations are applied (demo data, say); a failure is logged. */
  afterMigrate?: (client: WarehouseClient) => Promise<void>;
}

export function keepSchema(client: WarehouseClient, options: SchemaKeeperOptions): SchemaKeeper {
  const { logger } = options;
  let migrated = false;
  const streak = createFailureStreak(logger);
  let attempted!: () => void;
  const firstAttempt = new Promise<void>((resolve) => (attempted = resolve));
  let retrying!: Retrying;

  const done = new Promise<void>((resolve) => {
    retrying = retryWithBackoff(
      async () => {
        await migrate(client, { logger, cluster: options.cluster, callLogRetentionDays: options.callLogRetentionDays });
        const failedTries = streak.end();
        logger.info("warehouse reachable, schema up to date", failedTries > 0 ? { failedTries } : undefined);
        await options
          .afterMigrate?.(client)
          .catch((error: unknown) => logger.error("after-migration step failed", { error }));
        migrated = true;
        attempted();
        resolve();
      },
      (error, retryInMs) => {
        attempted();
        streak.failed(error, {
          msg: "warehouse not reachable yet; answering 503 until it is",
          fields: { retryInMs },
          // The embedded engine is not open: the reopening client has logged why, once.
          reportedElsewhere: error instanceof WarehouseClosedError,
        });
      },
      options,
    );
  });

  return {
    get migrated() {
      return migrated;
    },
    done,
    firstAttempt,
    stop: () => retrying.stop(),
  };
}

// Keeps trying to apply the migrations while a server warehouse is
// unreachable, so that the service can start before its warehouse and
// become ready by itself when the warehouse answers.
import type { ClickHouseClient } from "@clickhouse/client";
import type { Logger } from "../observability/index.js";
import { migrate } from "./migrations.js";

export interface SchemaKeeper {
  /** True once the migrations have been applied (or were already). */
  readonly migrated: boolean;
  /** Resolves when the migrations are applied. */
  readonly done: Promise<void>;
  stop(): void;
}

export interface SchemaKeeperOptions {
  logger: Logger;
  /** First wait between tries; doubles up to `maxRetryMs`. Default 1000 ms. */
  retryMs?: number;
  /** Default 30,000 ms. */
  maxRetryMs?: number;
}

export function keepSchema(client: ClickHouseClient, options: SchemaKeeperOptions): SchemaKeeper {
  const { logger } = options;
  let migrated = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wait = options.retryMs ?? 1000;
  const maxWait = options.maxRetryMs ?? 30_000;

  const done = new Promise<void>((resolve) => {
    const attempt = async () => {
      if (stopped) return;
      try {
        await migrate(client, { logger });
        migrated = true;
        logger.info("warehouse reachable, schema up to date");
        resolve();
      } catch (error) {
        logger.warn("warehouse not reachable yet; answering 503 until it is", { retryInMs: wait, error });
        timer = setTimeout(() => void attempt(), wait);
        timer.unref();
        wait = Math.min(maxWait, wait * 2);
      }
    };
    void attempt();
  });

  return {
    get migrated() {
      return migrated;
    },
    done,
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

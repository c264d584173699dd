// Brings the configured warehouse to a usable state at start: open it, apply
// the migrations, and load the demo data into an empty embedded warehouse.
import type { Config } from "../config/index.js";
import { type Clock, type Logger, systemClock } from "../observability/index.js";
import { migrate } from "./migrations.js";
import { logTablesAreEmpty, seedDemoData } from "./seed.js";
import { openWarehouse, type Warehouse } from "./warehouse-client.js";

export interface PrepareWarehouseOptions {
  config: Pick<Config, "warehouse" | "demoData">;
  logger: Logger;
  clock?: Clock;
}

/** Opens and migrates the warehouse; seeds demo data on a first embedded start unless disabled. */
export async function prepareWarehouse(options: PrepareWarehouseOptions): Promise<Warehouse> {
  const { config, logger } = options;
  const warehouse = await openWarehouse(config.warehouse);
  try {
    const { applied } = await migrate(warehouse.client, { logger });
    logger.info("warehouse ready", { kind: warehouse.kind, location: warehouse.location, migrationsApplied: applied.length });
    if (warehouse.kind === "embedded" && config.demoData && (await logTablesAreEmpty(warehouse.client))) {
      logger.info("loading demo data into the empty embedded warehouse (DEMO_DATA=0 disables)");
      const rows = await seedDemoData(warehouse.client, {
        now: (options.clock ?? systemClock)(),
        onProgress: progressLogger(logger),
      });
      logger.info("demo data loaded", { rows });
    }
    return warehouse;
  } catch (error) {
    await warehouse.close().catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot prepare the ${warehouse.kind} warehouse at ${warehouse.location}: ${reason}`, { cause: error });
  }
}

/** Logs seeding progress at every tenth of the way. */
export function progressLogger(logger: Logger) {
  let lastTenth = -1;
  return ({ table, inserted, total }: { table: string; inserted: number; total: number }) => {
    const tenth = Math.floor((inserted / total) * 10);
    if (tenth === lastTenth) return;
    lastTenth = tenth;
    logger.info("seeding", { percent: tenth * 10, inserted, total, table });
  };
}

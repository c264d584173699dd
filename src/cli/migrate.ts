// `npm run migrate`: creates or updates the schema of the configured warehouse.
import { readConfig } from "../config/index.js";
import { createLogger } from "../observability/index.js";
import { migrate, openWarehouse } from "../warehouse/index.js";
import { readCommandLine } from "./command-line.js";
import { runCli } from "./run-cli.js";

readCommandLine({
  usage: `usage: npm run migrate [-- --help]

Creates or updates the schema of the configured warehouse (CLICKHOUSE_URL, or
the embedded engine in CHDB_PATH); running it again changes nothing.

options:
  -h, --help   print this and exit`,
  options: {},
});

await runCli(async () => {
  const config = readConfig();
  const logger = createLogger();
  const warehouse = await openWarehouse(config.warehouse);
  try {
    const result = await migrate(warehouse.client, {
      logger,
      cluster: warehouse.cluster,
      callLogRetentionDays: config.callLog.retentionDays,
    });
    logger.info("migrate done", { location: warehouse.location, ...result });
  } finally {
    await warehouse.close();
  }
});

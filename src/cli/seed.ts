// `npm run seed`: replaces the contents of the nine log tables with the demo
// data set (about 100,000 rows over the last 8 days). `--scale N` multiplies
// the row count; running it again gives the same set, not a second copy.
import { readConfig } from "../config/index.js";
import { createLogger } from "../observability/index.js";
import { migrate, openWarehouse, progressLogger, seedDemoData } from "../warehouse/index.js";
import { readCommandLine } from "./command-line.js";
import { runCli } from "./run-cli.js";

const { values } = readCommandLine({
  usage: `usage: npm run seed [-- --scale N]

Loads the demo data set (about 100,000 rows over the last 8 days, all nine log
tables) into the configured warehouse, replacing what the log tables held.

options:
  --scale N    multiply the row count by N (default 1)
  -h, --help   print this and exit`,
  options: { scale: { type: "string", default: "1" } },
  check: ({ values }) => (Number(values.scale) > 0 ? [] : [`--scale must be a positive number, got "${values.scale}"`]),
});

await runCli(async () => {
  const scale = Number(values.scale);
  const config = readConfig();
  const logger = createLogger();
  const warehouse = await openWarehouse(config.warehouse);
  try {
    await migrate(warehouse.client, {
      logger,
      cluster: warehouse.cluster,
      callLogRetentionDays: config.callLog.retentionDays,
    });
    const started = Date.now();
    const rows = await seedDemoData(warehouse.client, { now: Date.now(), scale, onProgress: progressLogger(logger) });
    logger.info("seed done", { rows, location: warehouse.location, seconds: (Date.now() - started) / 1000 });
  } finally {
    await warehouse.close();
  }
});

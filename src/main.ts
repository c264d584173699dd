// `npm start`: reads the configuration, starts the service, and stops it
// cleanly on SIGTERM or SIGINT.
import { startService } from "./app/lifecycle.js";
import { readCommandLine } from "./cli/command-line.js";
import { runCli } from "./cli/run-cli.js";
import { readConfig } from "./config/index.js";
import { createLogger } from "./observability/index.js";

readCommandLine({
  usage: `usage: node dist/main.js [--help]      (npm start runs it after an up-to-date build)

Starts the service: migrates the warehouse, loads the demo data into an empty
embedded one (DEMO_DATA=1), and serves the saved queries on one port until
SIGTERM or SIGINT; SIGHUP reads API_KEYS_FILE again. Configured by
environment variables: PORT, HOST, API_KEYS, API_KEYS_FILE, JWT_SECRET,
JWT_PUBLIC_KEY, JWT_JWKS_FILE, CLICKHOUSE_URL, CLICKHOUSE_USER,
CLICKHOUSE_PASSWORD, CLICKHOUSE_DATABASE, CHDB_PATH, DEMO_DATA,
WAREHOUSE_RETRY_SECONDS, LOG_LEVEL, RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST
and the bounds (docs/configuration.md).

options:
  -h, --help   print this and exit`,
  options: {},
});

await runCli(async () => {
  const config = readConfig();
  const logger = createLogger({ level: config.logLevel });
  const service = await startService({ config, logger });
  process.on("SIGHUP", () => {
    logger.info("signal received", { signal: "SIGHUP" });
    service.reloadCredentials();
  });
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      logger.info("signal received", { signal });
      service.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error("shutdown failed", { error });
          process.exit(1);
        },
      );
    });
  }
});

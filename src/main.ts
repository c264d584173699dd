// `npm start`: reads the configuration, starts the service, and stops it
// cleanly on SIGTERM or SIGINT.
import { startService } from "./service/index.js";
import { readCommandLine } from "./cli/command-line.js";
import { runCli } from "./cli/run-cli.js";
import { configurationHelp, readConfig } from "./config/index.js";
import { createLogger } from "./observability/index.js";

readCommandLine({
  usage: `usage: node dist/main.js [--help]      (npm start runs it after an up-to-date build)

Starts the service: migrates the warehouse, loads the demo data into an empty
embedded one (DEMO_DATA=1), and serves the saved queries on one port until
SIGTERM or SIGINT; SIGHUP reads API_KEYS_FILE again. Configured by the
environment variables below (docs/configuration.md); an empty one counts as
unset, and a bad one stops start-up with a line naming it.

options:
  -h, --help   print this and exit

${configurationHelp()}`,
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

// `npm start`: reads the configuration, starts the service, and stops it
// cleanly on SIGTERM or SIGINT.
import { startService } from "./app/lifecycle.js";
import { runCli } from "./cli/run-cli.js";
import { readConfig } from "./config/index.js";
import { createLogger } from "./observability/index.js";

await runCli(async () => {
  const config = readConfig();
  const logger = createLogger({ level: config.logLevel });
  const service = await startService({ config, logger });
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

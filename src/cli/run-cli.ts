// Runs a command-line entry point: a configuration problem or failure is one
// clear message on stderr and exit code 1, not a stack trace.
import { ConfigError } from "../config/index.js";
import { DataDirectoryHeldError } from "../warehouse/index.js";

export async function runCli(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const problem of error.problems) process.stderr.write(`configuration error: ${problem}\n`);
    } else if (error instanceof DataDirectoryHeldError) {
      process.stderr.write(
        `error: another process (pid ${error.pid}, the running service?) holds the data directory ${error.path}; stop it, or set CLICKHOUSE_URL to work through a server\n`,
      );
    } else {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    process.exitCode = 1;
  }
}

// The service as a process of its own, started from the bundle `npm start`
// runs (dist/main.js, built once before the tests), or by another command
// line, a build's, say, with the environment a test gives it (credentials from
// the test alone, never from the environment the tests run in).
import { spawn, type ChildProcess } from "node:child_process";
import { bundleOf } from "./built-commands.js";

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Its exit code, once it has exited. */
  exited: Promise<number | null>;
  /** Its URL once it listens; rejects if it has not within `timeoutMs`. */
  listening(timeoutMs?: number): Promise<string>;
  /** SIGTERM, then resolves once it has exited. */
  stop(): Promise<void>;
}

export interface ServiceCommand {
  /** Node's arguments. Default: the service's bundle, dist/main.js. */
  args: string[];
  /** Default: this process's. */
  cwd?: string;
}

export function startServiceProcess(
  env: Record<string, string>,
  command: ServiceCommand = { args: [bundleOf("main")] },
): ServiceProcess {
  const unset = { API_KEYS: "", API_KEYS_FILE: "", JWT_SECRET: "", JWT_PUBLIC_KEY: "", JWT_JWKS_FILE: "" };
  const child = spawn(process.execPath, command.args, {
    cwd: command.cwd,
    env: { ...process.env, ...unset, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    async listening(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = /listening on (http:\S+)/.exec(output);
        if (match !== null) return match[1]!;
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`the service did not start: ${output.slice(-500)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

// The bench's child processes: servers started for part of the run, each
// ready once its output matches, and stopped (and waited for) by the bench
// before it removes their data directories; and commands run to their end.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { onCpu } from "./pinning.js";

/** The repository's root, where every child runs. */
export const root = join(import.meta.dirname, "..");

const children: ChildProcess[] = [];

/** A child process that is up: what its ready line matched, its pid, and a stop that resolves once it has exited. */
export interface Started {
  match: RegExpExecArray;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `node <args>` with `env` added to the bench's, on `cpu` alone when
 * given (taskset runs node in its own place: the pid is node's), and
 * resolves when its stdout or stderr matches `ready`.
 */
export function startProcess(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  cpu?: number,
): Promise<Started> {
  const child = spawn(...onCpu(cpu, process.execPath, args), {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let output = "";
  let up = false;
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      // Kept only until the ready line: a server's later log lines are not read.
      if (up) return;
      output += chunk.toString();
      const match = ready.exec(output);
      if (match === null) return;
      up = true;
      resolve({
        match,
        pid: child.pid!,
        stop: () => {
          child.kill("SIGTERM");
          return exited;
        },
      });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then(() => reject(new Error(`${args.join(" ")} exited ${child.exitCode}: ${output.slice(-500)}`)));
  });
}

/** The bare servers (bench/bare-servers.ts) replaying a capture file: the URL of each, by HTTP version. */
export interface BareServers {
  pid: number;
  url(http: "1.1" | "2"): string;
  stop(): Promise<void>;
}

export interface BareServerOptions {
  /** Node options besides the bench's (a profiler's, say). Default: none. */
  nodeArgs?: string[];
  /** The CPU to run on alone. Default: any. */
  cpu?: number;
}

/** Starts the bare servers on `captureFile`. */
export async function startBareServers(captureFile: string, options: BareServerOptions = {}): Promise<BareServers> {
  const started = await startProcess(
    [...(options.nodeArgs ?? []), "--import", "tsx", "bench/bare-servers.ts", captureFile],
    {},
    /ports (\d+) (\d+)/,
    options.cpu,
  );
  return {
    pid: started.pid,
    url: (http) => `http://127.0.0.1:${started.match[http === "1.1" ? 1 : 2]}`,
    stop: started.stop,
  };
}

/**
 * Runs `node <args>` to its end; resolves with its stdout when it exits 0.
 * Its stderr goes to the bench's, or with `quiet` only into the error when it fails.
 */
export function runToEnd(args: string[], env: Record<string, string> = {}, quiet = false): Promise<string> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", quiet ? "pipe" : "inherit"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (err = (err + chunk.toString()).slice(-2000)));
  return new Promise((resolve, reject) =>
    child.once("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${args.join(" ")} exited ${code}${err ? `: ${err}` : ""}`)),
    ),
  );
}

/** Stops every child still running and waits for them: their data directories are removed at exit. */
export async function stopAll(): Promise<void> {
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  const exited = running.map((child) => new Promise((resolve) => child.once("exit", resolve)));
  for (const child of running) child.kill("SIGTERM");
  await Promise.all(exited);
}

// Restart to ready: how long a process takes from its launch until GET
// /readyz answers 200, for a command line started again on a data directory
// that is already migrated and loaded. Each run is a new process; the
// commands measured take turns, so a slow moment of the machine falls on all.
import { spawn } from "node:child_process";
import { request } from "node:http";

export interface StartCommand {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Milliseconds from the launch of each command to its first /readyz 200, `runs` times each, in turns. */
export async function restartTimes(
  commands: StartCommand[],
  cwd: string,
  runs: number,
): Promise<Record<string, number[]>> {
  const times: Record<string, number[]> = Object.fromEntries(commands.map((c) => [c.label, []]));
  for (let run = 0; run < runs; run++) {
    for (const command of commands) times[command.label]!.push(await timeToReady(command, cwd));
  }
  return times;
}

async function timeToReady({ command, args, env }: StartCommand, cwd: string): Promise<number> {
  const started = performance.now();
  // A group of its own: npm starts Node as its child, and both are stopped.
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let output = "";
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\S+)/.exec(output);
        if (match !== null) resolve(match[1]!);
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", onData);
      void exited.then(() =>
        reject(new Error(`${command} ${args.join(" ")} exited before it listened: ${output.slice(-500)}`)),
      );
      setTimeout(() => reject(new Error(`${command} ${args.join(" ")} did not listen within 30 s`)), 30_000).unref();
    });
    while ((await status(`${url}/readyz`)) !== 200) {
      if (performance.now() - started > 30_000)
        throw new Error(`${command} ${args.join(" ")} was not ready within 30 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return performance.now() - started;
  } finally {
    process.kill(-child.pid!, "SIGTERM");
    await exited;
    // npm may exit before its child: the next run needs the data directory let go.
    while (groupAlive(child.pid!)) await new Promise((r) => setTimeout(r, 10));
  }
}

function groupAlive(groupId: number): boolean {
  try {
    process.kill(-groupId, 0);
    return true;
  } catch {
    return false;
  }
}

function status(url: string): Promise<number> {
  return new Promise((resolve) => {
    request(url, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    })
      .on("error", () => resolve(0))
      .end();
  });
}

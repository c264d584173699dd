// Where the bench's processes run: h2load pinned to one CPU and the servers
// it loads to another (`taskset`, from util-linux), so that the load tester
// and the server do not take turns on one core; unpinned, and saying why,
// where only one CPU is allowed or taskset cannot pin.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

/** The CPUs of a run: pinned, one for h2load and one for the servers it loads; or not, and why. */
export type Pinning = { pinned: true; clientCpu: number; serverCpu: number } | { pinned: false; reason: string };

/** The CPU numbers of a list such as `0-1,4,6-7` (as /proc's `Cpus_allowed_list` and taskset write it). */
export function parseCpuList(text: string): number[] {
  const cpus: number[] = [];
  for (const part of text.trim().split(",")) {
    if (part === "") continue;
    const [from, to = from] = part.split("-").map(Number) as [number, number?];
    if (!Number.isInteger(from) || !Number.isInteger(to)) throw new Error(`unreadable CPU list "${text}"`);
    for (let cpu = from; cpu <= to!; cpu++) cpus.push(cpu);
  }
  return cpus;
}

/**
 * The plan for `allowedCpus` (the CPUs this process may run on) when
 * taskset can pin (`tasksetProblem` undefined) or cannot (why not): h2load on
 * the first CPU, every server on the second; past two, the others stay unused
 * so that a server always has one core, as on a two-core machine.
 */
export function pinningPlan(allowedCpus: number[], tasksetProblem: string | undefined): Pinning {
  if (allowedCpus.length < 2)
    return { pinned: false, reason: `only one CPU (${allowedCpus.join(",") || "none"}) for h2load and the servers` };
  if (tasksetProblem !== undefined) return { pinned: false, reason: tasksetProblem };
  return { pinned: true, clientCpu: allowedCpus[0]!, serverCpu: allowedCpus[1]! };
}

/** One line saying where the processes run. */
export function describePinning(pinning: Pinning): string {
  return pinning.pinned
    ? `h2load pinned to CPU ${pinning.clientCpu}, the servers it loads to CPU ${pinning.serverCpu}`
    : `unpinned: ${pinning.reason}`;
}

/** The command and arguments that run `command` on `cpu` (through taskset), or as they are without one. */
export function onCpu(cpu: number | undefined, command: string, args: string[]): [string, string[]] {
  return cpu === undefined ? [command, args] : ["taskset", ["--cpu-list", String(cpu), command, ...args]];
}

/** The CPUs this process may run on: /proc's list where there is one, else 0 to the count Node sees. */
function allowedCpus(): number[] {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const line = /^Cpus_allowed_list:\s*(\S+)$/m.exec(status);
    if (line !== null) return parseCpuList(line[1]!);
  } catch {
    // Not Linux: fall through to the count.
  }
  return Array.from({ length: availableParallelism() }, (_, cpu) => cpu);
}

/** Why taskset cannot run a command on each of `cpus`; undefined when it can. */
function tasksetProblem(cpus: number[]): string | undefined {
  for (const cpu of cpus) {
    const result = spawnSync(...onCpu(cpu, "true", []), { encoding: "utf8" });
    if (result.error !== undefined)
      return "taskset was not found: install util-linux (Debian: apt-get install util-linux)";
    if (result.status !== 0) return `taskset could not pin to CPU ${cpu}: ${result.stderr.trim()}`;
  }
  return undefined;
}

/** This machine's plan, taskset tried on the two CPUs it would use. */
export function planPinning(): Pinning {
  const cpus = allowedCpus();
  return pinningPlan(cpus, cpus.length < 2 ? undefined : tasksetProblem(cpus.slice(0, 2)));
}

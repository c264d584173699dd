// Reading a V8 CPU profile (`node --cpu-prof`) over one window of time: the
// self time of each function among the samples taken between two instants.
// The profile's timestamps are microseconds of the system's monotonic clock,
// the one process.hrtime reads, so another process (the bench) can name the
// window of a load turn it ran against the profiled server.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";

/** The parts of a `.cpuprofile` file read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  /** Microseconds, monotonic clock. */
  startTime: number;
  /** The node each sample was taken in, and the microseconds since the sample before (the first: since startTime). */
  samples: number[];
  timeDeltas: number[];
}

/** Functions V8 names itself: time not spent in JavaScript. */
const runtimeEntries = new Set(["(program)", "(garbage collector)", "(idle)", "(root)"]);

/** `name file:line`, or V8's own name for its entries (`(garbage collector)`, `(idle)`, ...). */
function functionName(frame: CpuProfile["nodes"][number]["callFrame"]): string {
  const name = frame.functionName || "(anonymous)";
  if (runtimeEntries.has(name) || frame.url === "") return name;
  return `${name} ${basename(frame.url)}:${frame.lineNumber + 1}`;
}

/**
 * Microseconds of self time by function over the samples taken from `fromUs`
 * to `toUs`. A sample counts for the time until the next one, as Chrome's
 * profiler shows it.
 */
export function selfTimes(profile: CpuProfile, fromUs: number, toUs: number): Map<string, number> {
  const names = new Map(profile.nodes.map((node) => [node.id, functionName(node.callFrame)]));
  const times = new Map<string, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!;
    const until = i + 1 < profile.samples.length ? at + profile.timeDeltas[i + 1]! : at;
    if (at < fromUs || at >= toUs) continue;
    const name = names.get(profile.samples[i]!) ?? "(unknown)";
    times.set(name, (times.get(name) ?? 0) + (until - at));
  }
  return times;
}

/** The largest `.cpuprofile` in `directory` (a process writes one per thread it profiled: the main one is the largest). */
export function readProfileIn(directory: string): CpuProfile {
  const files = readdirSync(directory).filter((file) => file.endsWith(".cpuprofile"));
  if (files.length === 0) throw new Error(`no .cpuprofile in ${directory}: did the process exit normally?`);
  const largest = files
    .map((file) => join(directory, file))
    .reduce((a, b) => (statSync(a).size >= statSync(b).size ? a : b));
  return JSON.parse(readFileSync(largest, "utf8")) as CpuProfile;
}

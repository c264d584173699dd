// CPU time of another process, read from /proc/<pid>/stat: user plus system
// time of all its threads, so that a load turn can be charged to the server
// that answered it (microseconds of CPU per call).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

let ticksPerSecond: number | undefined;

/** Clock ticks a second of /proc's times (`getconf CLK_TCK`); 100 where it cannot be asked. */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** Microseconds of CPU process `pid` has used so far (all its threads); NaN where /proc cannot be read. */
export function cpuMicroseconds(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return Number.NaN;
  }
  // The command name, in parentheses, may hold spaces: fields are counted after its closing one.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1e6) / clockTicks();
}

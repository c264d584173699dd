// What the bench's sections share: the run's settings, the API keys and demo
// project, a seeded demo data set of which each service started gets a copy
// of its own (chDB takes one data directory per process), and a way to start
// the service, and where h2load and the servers it loads run.
import { cpSync } from "node:fs";
import { join } from "node:path";
import { demoProjects } from "../src/warehouse/index.js";
import { type Pinning, planPinning } from "./pinning.js";
import { runToEnd, startProcess } from "./processes.js";
import type { Report } from "./report.js";
import { temporaryDirectory } from "./temp-directory.js";

export interface BenchSettings {
  /** A short run of everything, to check the bench itself works. */
  smoke: boolean;
  /** Seconds of each measured load. */
  seconds: number;
  /** Rounds of the cache-hit section (one turn on the service and one on its bare server each) and of the estimates section. */
  rounds: number;
  /** Seconds of each cache-hit turn. */
  turnSeconds: number;
  /** Node options for every service started (BENCH_NODE_ARGS), before any a section adds. */
  serviceNodeArgs: string[];
}

/** The Node options of BENCH_NODE_ARGS (space-separated), for every service a bench command starts. */
export function serviceNodeArgsFromEnvironment(): string[] {
  return (process.env.BENCH_NODE_ARGS ?? "").split(/\s+/).filter((arg) => arg !== "");
}

/** A service started by the bench. */
export interface Service {
  url: string;
  pid: number;
  /** Resolves once it has exited. */
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** Node options after the run's `serviceNodeArgs` (a profiler's, say). Default: none. */
  nodeArgs?: string[];
  /** The CPU to run on alone (`pinning.serverCpu`). Default: any. */
  cpu?: number;
}

export interface BenchContext extends BenchSettings {
  /** The API key of every call, and a second one for the fairness section. */
  key: string;
  quietKey: string;
  /** The demo project the calls ask about. */
  project: string;
  /** A path in the bench's temporary directory, new for each name. */
  path(name: string): string;
  /** A new copy of the seeded demo data directory. */
  freshData(name: string): string;
  /** The service's environment for a load test: a fresh copy of the data, no rate limit. */
  serviceEnv(name: string): Record<string, string>;
  /** Starts `node dist/main.js` with `env` (from `serviceEnv`, say). */
  startService(env: Record<string, string>, options?: ServiceOptions): Promise<Service>;
  /** Where h2load and the servers it loads may be pinned on this machine. */
  pinning: Pinning;
  progress(text: string): void;
}

/** One part of the bench: it measures, adds rows to the report, and stops what it started. */
export interface Section {
  name: string;
  run(context: BenchContext, report: Report): Promise<void>;
}

/** Seeds the demo data set once and makes the context the sections share. */
export async function createContext(settings: BenchSettings): Promise<BenchContext> {
  const directory = temporaryDirectory("sqe-bench-");
  const seeded = join(directory, "seeded");
  const progress = (text: string) => process.stderr.write(`bench: ${text}\n`);
  progress("seeding the demo data set");
  await runToEnd(["dist/cli/seed.js"], { CHDB_PATH: seeded }, true);
  const used = new Set<string>();
  const path = (name: string) => {
    let unique = name;
    for (let i = 2; used.has(unique); i++) unique = `${name}-${i}`;
    used.add(unique);
    return join(directory, unique);
  };
  const freshData = (name: string) => {
    const copy = path(name);
    cpSync(seeded, copy, { recursive: true });
    return copy;
  };
  const key = "bench-key-0123456789";
  return {
    ...settings,
    key,
    quietKey: "bench-quiet-key-0123456789",
    project: demoProjects()[0]!,
    path,
    freshData,
    // The per-key rate limit would turn most of a load test into 429s.
    serviceEnv: (name) => ({
      PORT: "0",
      API_KEYS: key,
      DEMO_DATA: "0",
      RATE_LIMIT_PER_SECOND: "0",
      LOG_LEVEL: "warn",
      CHDB_PATH: freshData(name),
    }),
    startService: async (env, options = {}) => {
      const started = await startProcess(
        [...settings.serviceNodeArgs, ...(options.nodeArgs ?? []), "dist/main.js"],
        env,
        /listening on (http:\S+)/,
        options.cpu,
      );
      return { url: started.match[1]!, pid: started.pid, stop: started.stop };
    },
    pinning: planPinning(),
    progress,
  };
}

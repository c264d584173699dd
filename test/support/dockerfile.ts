// A reader of the project's Dockerfile, for the test that does what the image
// build would do without a container engine: its stages, and per stage the
// instructions in order, with line continuations joined and the JSON (exec)
// form of CMD and HEALTHCHECK read as an argument list.
import { readFileSync } from "node:fs";

export interface Instruction {
  /** Upper-case keyword: FROM, COPY, RUN, ENV, CMD, ... */
  keyword: string;
  /** The rest of the line, continuations joined with a space. */
  text: string;
}

export interface Stage {
  /** The name after `AS`, or the stage's index for an unnamed stage. */
  name: string;
  base: string;
  instructions: Instruction[];
}

export interface Copy {
  /** The stage copied from (`--from=`), or undefined for the build context. */
  from: string | undefined;
  sources: string[];
  destination: string;
}

/** The stages of the Dockerfile at `path`, in order (the last one is the image). */
export function readDockerfile(path: string): Stage[] {
  const lines = readFileSync(path, "utf8").split("\n");
  const instructions: Instruction[] = [];
  let pending = "";
  for (const line of lines) {
    const trimmed = line.trim();
    if (pending === "" && (trimmed === "" || trimmed.startsWith("#"))) continue;
    if (trimmed.endsWith("\\")) {
      pending += `${trimmed.slice(0, -1).trim()} `;
      continue;
    }
    const whole = pending + trimmed;
    pending = "";
    const match = /^([A-Za-z]+)\s+(.*)$/.exec(whole);
    if (match === null) throw new Error(`not an instruction: ${whole}`);
    instructions.push({ keyword: match[1]!.toUpperCase(), text: match[2]!.trim() });
  }
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const [base = "", as, name] = instruction.text.split(/\s+/);
      stages.push({
        name: as?.toUpperCase() === "AS" && name !== undefined ? name : String(stages.length),
        base,
        instructions: [],
      });
    } else {
      const stage = stages.at(-1);
      if (stage === undefined) throw new Error(`${instruction.keyword} before the first FROM`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

/** The COPY instructions of `stage`. */
export function copiesOf(stage: Stage): Copy[] {
  return stage.instructions
    .filter((i) => i.keyword === "COPY")
    .map((i) => {
      const words = i.text.split(/\s+/);
      const flags = words.filter((w) => w.startsWith("--"));
      const paths = words.filter((w) => !w.startsWith("--"));
      const from = flags.find((f) => f.startsWith("--from="))?.slice("--from=".length);
      return { from, sources: paths.slice(0, -1), destination: paths.at(-1)! };
    });
}

/** The variables `stage` sets with ENV (the `KEY=value KEY=value` form). */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of stage.instructions.filter((i) => i.keyword === "ENV")) {
    for (const pair of i.text.split(/\s+/)) {
      const at = pair.indexOf("=");
      if (at <= 0) throw new Error(`ENV in the KEY=value form only: ${i.text}`);
      env[pair.slice(0, at)] = pair.slice(at + 1);
    }
  }
  return env;
}

/** The argument list of an instruction in exec form: `CMD ["node", "dist/main.js"]`. */
export function execForm(text: string): string[] {
  const json = text.slice(text.indexOf("["));
  const args: unknown = JSON.parse(json);
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) throw new Error(`not exec form: ${text}`);
  return args;
}

/** The one instruction `keyword` of `stage`, which must be there exactly once. */
export function only(stage: Stage, keyword: string): Instruction {
  const found = stage.instructions.filter((i) => i.keyword === keyword);
  if (found.length !== 1) throw new Error(`${found.length} ${keyword} instructions in stage ${stage.name}, not one`);
  return found[0]!;
}

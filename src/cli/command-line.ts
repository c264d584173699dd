// The command line of each command: its options read strictly, `--help` or
// `-h` printing its usage, and anything unknown, or an option value the
// command cannot take, refused with the usage and exit code 2, before the
// command does anything.
import { parseArgs, type ParseArgsConfig } from "node:util";

type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

export interface CommandLineSpec<T extends OptionsConfig> {
  /** The usage text: a `usage:` line, a sentence on what the command does, its options. */
  usage: string;
  /** The command's own options; `--help`/`-h` is added to every command. */
  options: T;
  /** Whether the command takes operands (a file name, say). Default false. */
  allowPositionals?: boolean;
  /** What is wrong with the options' values and the operands, one sentence each; none when they are fine. Default: nothing. */
  check?: (line: { values: Values<T>; positionals: string[] }) => string[];
}

type Values<T extends OptionsConfig> = ReturnType<
  typeof parseArgs<{ options: T; strict: true; allowPositionals: boolean }>
>["values"];

export type CommandLine<T extends OptionsConfig> =
  | { kind: "run"; values: Values<T>; positionals: string[] }
  | { kind: "help" }
  | { kind: "usage-error"; message: string };

/** Reads `args` against `spec`; never throws and never exits. */
export function parseCommandLine<T extends OptionsConfig>(
  spec: CommandLineSpec<T>,
  args: readonly string[],
): CommandLine<T> {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { ...spec.options, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: spec.allowPositionals ?? false,
    });
    if ((values as { help?: boolean }).help === true) return { kind: "help" };
    const problems = spec.check?.({ values: values as Values<T>, positionals }) ?? [];
    if (problems.length > 0) return { kind: "usage-error", message: problems.join("; ") };
    return { kind: "run", values: values as Values<T>, positionals };
  } catch (error) {
    // parseArgs says what was wrong and how to fix it; its hint about "--" is noise here.
    const message = (error instanceof Error ? error.message : String(error))
      .split("\n")[0]!
      .replace(/\. To specify a positional argument.*$/, "");
    return { kind: "usage-error", message };
  }
}

/**
 * The options and operands of this process's command line. `--help` prints
 * the usage on stdout and exits 0; a usage error prints it on stderr with
 * what was wrong and exits 2.
 */
export function readCommandLine<T extends OptionsConfig>(
  spec: CommandLineSpec<T>,
  args: readonly string[] = process.argv.slice(2),
): { values: Values<T>; positionals: string[] } {
  const line = parseCommandLine(spec, args);
  if (line.kind === "help") {
    process.stdout.write(`${spec.usage.trimEnd()}\n`);
    process.exit(0);
  }
  if (line.kind === "usage-error") {
    process.stderr.write(`error: ${line.message}\n\n${spec.usage.trimEnd()}\n`);
    process.exit(2);
  }
  return line;
}

// Reading a command's line: --help, strict options, operands.
import { describe, expect, it } from "vitest";
import { parseCommandLine } from "../../src/cli/command-line.js";

const seed = { usage: "usage: seed", options: { scale: { type: "string", default: "1" } } } as const;
const importer = { usage: "usage: import", options: { table: { type: "string" } }, allowPositionals: true } as const;

describe("parseCommandLine", () => {
  it.each([[["--help"]], [["-h"]], [["--scale", "2", "--help"]]])("reads %j as a request for the usage", (args) => {
    expect(parseCommandLine(seed, args)).toEqual({ kind: "help" });
  });

  it.each([
    [["--bogus"], "Unknown option '--bogus'"],
    [["-x"], "Unknown option '-x'"],
    [["extra"], "Unexpected argument 'extra'. This command does not take positional arguments"],
    [["--scale"], "Option '--scale <value>' argument missing"],
  ])("refuses %j saying %s", (args, message) => {
    expect(parseCommandLine(seed, args)).toEqual({ kind: "usage-error", message });
  });

  it("refuses the values its check finds wrong, every problem in one message, and checks nothing for --help", () => {
    const checked = {
      ...seed,
      check: ({ values }: { values: { scale?: string } }) =>
        Number(values.scale) >= 1 ? [] : [`--scale must be at least 1, got "${values.scale}"`, "and a second problem"],
    };
    expect(parseCommandLine(checked, ["--scale", "0"])).toEqual({
      kind: "usage-error",
      message: '--scale must be at least 1, got "0"; and a second problem',
    });
    expect(parseCommandLine(checked, ["--scale", "0", "--help"])).toEqual({ kind: "help" });
    expect(parseCommandLine(checked, ["--scale", "3"])).toMatchObject({ kind: "run", values: { scale: "3" } });
  });

  it("fills in defaults and keeps given values", () => {
    expect(parseCommandLine(seed, [])).toMatchObject({ kind: "run", values: { scale: "1" }, positionals: [] });
    expect(parseCommandLine(seed, ["--scale", "10"])).toMatchObject({ kind: "run", values: { scale: "10" } });
  });

  it("keeps operands for a command that takes them", () => {
    expect(parseCommandLine(importer, ["--table", "edge_logs", "-"])).toMatchObject({
      kind: "run",
      values: { table: "edge_logs" },
      positionals: ["-"],
    });
  });
});

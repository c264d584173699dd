// One environment variable: its name, parser, default and meaning, from which
// readConfig, `--help` and docs/configuration.md all come.
import type { Parser } from "./parsers.js";

/** The part of docs/configuration.md (and of `--help`) a variable is listed in. */
export type Section = "Listening" | "Keys" | "Warehouse" | "Logging" | "Browsers" | "Bounds";

export interface Variable<T> {
  name: string;
  section: Section;
  parser: Parser<T>;
  /**
   * The value when the variable is unset, blank or bad (a bad one also stops
   * start-up); undefined when there is none. Numbers the service's parts fill
   * in themselves are their exported defaults, not written again here.
   */
  default: T | undefined;
  /** The default as the documentation writes it, when not the parser's writing of `default` (or `(none)`). */
  shownDefault?: string;
  /** Taken as given, blanks included, instead of trimmed (a password); only an unset variable takes the default. */
  verbatim?: boolean;
  /** What it means, in Markdown: a sentence or a few, as the documentation's table cell. */
  description: string;
}

/** A variable, its type inferred from its parser, and whether it may be undefined from its default. */
export function variable<T, D extends T | undefined>(spec: Variable<T> & { default: D }): Variable<T> & { default: D } {
  return spec;
}

/** The value a variable gives: undefined when unset and without a default. */
export type ValueOf<V> = V extends { parser: Parser<infer T>; default: infer D }
  ? undefined extends D
    ? T | undefined
    : T
  : never;

/** The default as the documentation and `--help` write it: `` `8080` ``, `(none)` or `empty`. */
export function shownDefault(v: Variable<unknown>): string {
  if (v.shownDefault !== undefined) return v.shownDefault;
  if (v.default === undefined) return "(none)";
  const shown = v.parser.show(v.default);
  return shown === "" ? "empty" : `\`${shown}\``;
}

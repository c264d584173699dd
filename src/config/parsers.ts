// How the text of one variable becomes a value: each parser reads it (or
// refuses it with lines naming the variable) and writes a value back for the
// documentation and `--help`.
import { ConfigError } from "./config.js";

/** Reads one variable's text. */
export interface Parser<T> {
  /** The value of `text` (trimmed, not empty); throws a ConfigError whose lines name `name` when it is not one. */
  read(text: string, name: string): T;
  /** How `value` is written in the documentation, as the variable would be set. */
  show(value: T): string;
  /** The least value accepted, for the table of bounds; none for a parser of anything but numbers. */
  least?: number;
}

function refuse(line: string): never {
  throw new ConfigError([line]);
}

/** Any text. */
export const text: Parser<string> = { read: (value) => value, show: (value) => value };

/** A whole number from `least`. */
export function whole(least: number): Parser<number> {
  return {
    read(value, name) {
      if (!/^\d+$/.test(value) || Number(value) < least) {
        refuse(`${name} must be a whole number of at least ${least}, got "${value}"`);
      }
      return Number(value);
    },
    show: String,
    least,
  };
}

/** Whole seconds from `least`, as milliseconds. */
export function seconds(least: number): Parser<number> {
  const count = whole(least);
  return { read: (value, name) => count.read(value, name) * 1000, show: (ms) => String(ms / 1000), least };
}

/** A rate: a number from 0, a fraction allowed. */
export const rate: Parser<number> = {
  read(value, name) {
    if (!/^\d+(\.\d+)?$/.test(value)) refuse(`${name} must be a non-negative number, got "${value}"`);
    return Number(value);
  },
  show: String,
  least: 0,
};

/** A fraction above 0 and at most 1, written as a decimal (`0.5`). */
export const fraction: Parser<number> = {
  read(value, name) {
    if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0 || Number(value) > 1) {
      refuse(`${name} must be a number above 0 and at most 1, got "${value}"`);
    }
    return Number(value);
  },
  show: String,
};

/** Seconds from `least`, a fraction allowed, as whole milliseconds. */
export function fractionalSeconds(least: number): Parser<number> {
  return {
    read(value, name) {
      if (!/^\d+(\.\d+)?$/.test(value) || Number(value) < least) {
        refuse(`${name} must be a number of at least ${least}, got "${value}"`);
      }
      return Math.round(Number(value) * 1000);
    },
    show: (ms) => String(ms / 1000),
  };
}

/** An integer from `least` to `most`. */
export function integer(least: number, most: number): Parser<number> {
  return {
    read(value, name) {
      if (!/^\d+$/.test(value) || Number(value) < least || Number(value) > most) {
        refuse(`${name} must be an integer from ${least} to ${most}, got "${value}"`);
      }
      return Number(value);
    },
    show: String,
  };
}

/** `0` or `1`, as false or true. */
export const flag: Parser<boolean> = {
  read(value, name) {
    if (value !== "0" && value !== "1") refuse(`${name} must be 0 or 1, got "${value}"`);
    return value === "1";
  },
  show: (on) => (on ? "1" : "0"),
};

/** One of `choices`. */
export function oneOf<T extends string>(choices: readonly T[]): Parser<T> {
  return {
    read(value, name) {
      if (!(choices as readonly string[]).includes(value)) {
        refuse(`${name} must be one of ${choices.join(", ")}, got "${value}"`);
      }
      return value as T;
    },
    show: (value) => value,
  };
}

/** A plain identifier: letters, digits and `_`, not starting with a digit. */
export const identifier: Parser<string> = {
  read(value, name) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) refuse(`${name} must be a plain identifier, got "${value}"`);
    return value;
  },
  show: (value) => value,
};

/** An `http://` or `https://` URL. */
export const httpUrl: Parser<string> = {
  read(value, name) {
    let protocol: string | undefined;
    try {
      protocol = new URL(value).protocol;
    } catch {}
    if (protocol !== "http:" && protocol !== "https:") {
      refuse(`${name} must be an http:// or https:// URL, got "${value}"`);
    }
    return value;
  },
  show: (value) => value,
};

/** Text of at least `least` characters (a secret: the refusal gives its length, never the text). */
export function secret(least: number): Parser<string> {
  return {
    read(value, name) {
      if (value.length < least) refuse(`${name} must be at least ${least} characters long, got ${value.length}`);
      return value;
    },
    show: (value) => value,
  };
}

/** `*` for anything, or a list of entries as `list` reads it (CORS_ORIGINS). */
export function corsOrigins(
  problem: (name: string, entry: string, index: number) => string | undefined,
): Parser<"*" | string[]> {
  const entries = list(problem);
  return {
    read: (value, name) => (value === "*" ? "*" : entries.read(value, name)),
    show: (value) => (value === "*" ? "*" : entries.show(value)),
  };
}

/**
 * A comma-separated list, blanks around entries and empty entries dropped;
 * `problem` names what is wrong with an entry (the `index`th, from 0) in a
 * whole line, or says nothing. Every bad entry is reported.
 */
export function list(problem: (name: string, entry: string, index: number) => string | undefined): Parser<string[]> {
  return {
    read(value, name) {
      const entries = value
        .split(",")
        .map((entry) => entry.trim())
        .filter((entry) => entry !== "");
      const lines = entries.flatMap((entry, i) => problem(name, entry, i) ?? []);
      if (lines.length > 0) throw new ConfigError(lines);
      return entries;
    },
    show: (entries) => entries.join(","),
  };
}

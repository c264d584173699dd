// Keeps a caller's RE2 pattern cheap before it reaches the warehouse.
//
// RE2 runs in time linear in the text, but the factor is the size of the
// compiled pattern, and Unicode character classes compile to large UTF-8
// automata: over the demo data `\pL{30}` costs seconds where `.{1000}` or
// nested ASCII repetitions cost as much as a plain project name
// (docs/reliability.md has the figures). Request URLs are ASCII (RFC 3986
// percent-encodes everything else), so an ASCII pattern loses nothing.

/**
 * Why `pattern` may not be used as a URL pattern, or undefined when it may:
 * it must be printable ASCII, with no Unicode classes (`\p`, `\P`) and no
 * escapes of characters beyond ASCII (`\x{...}`, `\xHH` above 7F, octal
 * above 177). Whether it is valid RE2 is left to the warehouse.
 */
export function re2PatternProblem(pattern: string): string | undefined {
  if (!/^[\x20-\x7e]*$/.test(pattern)) return "must be printable ASCII: request URLs are ASCII";
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== "\\") continue;
    const next = pattern[i + 1];
    if (next === "p" || next === "P") return "must not use Unicode classes (\\p, \\P): request URLs are ASCII";
    const code = escapedCode(pattern, i + 1);
    if (code !== undefined && code > 0x7f) return "must not escape characters beyond ASCII: request URLs are ASCII";
    i += 1; // the escaped character is never the start of another escape
  }
  return undefined;
}

/** The character code of a `\x` or octal escape whose letter is at `at`, if it is one. */
function escapedCode(pattern: string, at: number): number | undefined {
  const letter = pattern[at];
  if (letter === "x") {
    const braced = /^\{([0-9A-Fa-f]+)\}/.exec(pattern.slice(at + 1));
    if (braced !== null) return Number.parseInt(braced[1]!, 16);
    const plain = /^[0-9A-Fa-f]{2}/.exec(pattern.slice(at + 1));
    return plain === null ? undefined : Number.parseInt(plain[0], 16);
  }
  const octal = /^[0-7]{1,3}/.exec(pattern.slice(at));
  return octal === null ? undefined : Number.parseInt(octal[0], 8);
}

// Which URL patterns are kept from the warehouse: ASCII only, no Unicode
// classes, no escapes beyond ASCII; everything else goes to RE2 as it is.
import { describe, expect, it } from "vitest";
import { re2PatternProblem } from "../../src/endpoints/re2-pattern.js";

describe("re2PatternProblem", () => {
  it.each([
    "abzsnkmgosgetnfjhnhz",
    "^https://abz[a-m]",
    "(?i)//PROJ07\\.",
    ".{1000}",
    "(((\\W{10}){10}){10})",
    "[^a]{500}",
    "\\\\p", // an escaped backslash, then a plain p
    "\\x41\\x{7F}\\101",
    "[[:alpha:]]+",
    "",
  ])("accepts %j", (pattern) => {
    expect(re2PatternProblem(pattern)).toBeUndefined();
  });

  it.each([
    ["\\pL{30}", "Unicode classes"],
    ["a\\P{Nd}", "Unicode classes"],
    ["[\\p{Greek}x]", "Unicode classes"],
    ["\\\\\\pL", "Unicode classes"], // an escaped backslash, then \pL
    ["é", "printable ASCII"],
    ["tab\there", "printable ASCII"],
    ["[\\x{100}-\\x{2000}]", "beyond ASCII"],
    ["\\x80", "beyond ASCII"],
    ["\\200", "beyond ASCII"],
  ])("refuses %j: %s", (pattern, reason) => {
    expect(re2PatternProblem(pattern)).toContain(reason);
  });
});

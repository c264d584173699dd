// The placeholders of a saved query's SQL, and the start-up check that they
// and the request fields match one for one.
import { describe, expect, it } from "vitest";
import { placeholderProblems, placeholdersOf } from "../../src/endpoints/sql-placeholders.js";

describe("placeholdersOf", () => {
  it.each([
    ["one", "SELECT {project:String}", [["project", "String"]]],
    ["spaces inside the braces", "SELECT { project : String }", [["project", "String"]]],
    [
      "a type with parentheses",
      "WHERE t > {start:Nullable(DateTime64(6, 'UTC'))}",
      [["start", "Nullable(DateTime64(6, 'UTC'))"]],
    ],
    [
      "order of first use, each once",
      "{b:UInt8} {a:String} {b:UInt8}",
      [
        ["b", "UInt8"],
        ["a", "String"],
      ],
    ],
    ["an underscore name", "{_x1:Int32}", [["_x1", "Int32"]]],
    ["none in a comment", "-- uses {hidden:String}\nSELECT {shown:String}", [["shown", "String"]]],
    ["a comment at the end of a line", "SELECT {a:String} -- and {b:String}", [["a", "String"]]],
    ["no type: not a placeholder", "SELECT {name}", []],
    ["a name starting with a digit: not a placeholder", "SELECT {1a:String}", []],
    ["no SQL", "", []],
  ])("%s", (_case, sql, expected) => {
    expect(placeholdersOf(sql).map((p) => [p.name, p.type])).toEqual(expected);
  });
});

describe("placeholderProblems", () => {
  it.each([
    ["fields and placeholders match", "{project:String} {interval:String}", ["interval", "project"], []],
    ["now is the service's", "{now:DateTime64(6)} {project:String}", ["project"], []],
    ["unmasked is the service's", "{unmasked:UInt8} {project:String}", ["project"], []],
    [
      "a field named as the service's unmasked, which a caller could then set",
      "{unmasked:UInt8} {project:String}",
      ["project", "unmasked"],
      ["q: request field unmasked is named as the service's own {unmasked}"],
    ],
    [
      "a field named as the service's now",
      "{now:DateTime64(6)}",
      ["now"],
      ["q: request field now is named as the service's own {now}"],
    ],
    [
      "a placeholder no field provides",
      "{project:String} {tier:String}",
      ["project"],
      ["q: the SQL uses {tier} but no request field provides it (fields: project)"],
    ],
    [
      "a placeholder and no fields at all",
      "{project:String}",
      [],
      ["q: the SQL uses {project} but no request field provides it (fields: none)"],
    ],
    [
      "a field the SQL does not read",
      "{project:String}",
      ["project", "extra"],
      ["q: request field extra is not used by the SQL"],
    ],
    [
      "a field read only in a comment",
      "-- {extra:String}\n{project:String}",
      ["project", "extra"],
      ["q: request field extra is not used by the SQL"],
    ],
    [
      "both kinds, placeholders first",
      "{a:String}",
      ["b"],
      ["q: the SQL uses {a} but no request field provides it (fields: b)", "q: request field b is not used by the SQL"],
    ],
  ])("%s", (_case, sql, fields, expected) => {
    expect(placeholderProblems("q", sql, fields)).toEqual(expected);
  });
});

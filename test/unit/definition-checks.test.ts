// The quoted literals of a saved query's SQL, which the start-up check of
// allowed values reads: comments skipped, both escapes of a quote read.
import { describe, expect, it } from "vitest";
import { allowedValueProblems, sqlStringLiterals } from "../../src/endpoints/definition-checks.js";

describe("sqlStringLiterals", () => {
  it.each([
    ["x = 'daily' OR y IN ('a', 'b')", ["daily", "a", "b"]],
    ["x = 'it''s' AND y = 'back\\'slash'", ["it's", "back'slash"]],
    ["-- 'commented'\nx = 'code' /* 'block' */ AND z = ''", ["code", ""]],
    ["x = 'a -- not a comment'", ["a -- not a comment"]],
    ["x = {p:DateTime64(6, 'UTC')}", ["UTC"]],
  ])("reads %j as %j", (sql, literals) => {
    expect([...sqlStringLiterals(sql)]).toEqual(literals);
  });
});

describe("allowedValueProblems", () => {
  it("names each allowed value the SQL does not name, with its endpoint and parameter", () => {
    const sql = "multiIf(t = 'FREE', 1, t = 'PRO', 7, 1)";
    const parameters = [
      { name: "project", allowedValues: [] },
      { name: "tier", allowedValues: ["FREE", "PRO", "TEAM", "free"] },
    ];
    expect(allowedValueProblems("logs.x", sql, parameters)).toEqual([
      `logs.x: allowed value "TEAM" of tier does not appear in the SQL as 'TEAM', so the SQL would answer it as another value`,
      `logs.x: allowed value "free" of tier does not appear in the SQL as 'free', so the SQL would answer it as another value`,
    ]);
  });
});

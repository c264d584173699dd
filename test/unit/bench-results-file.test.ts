// Where a bench run writes its figures: latest.json, which docs/performance.md
// reports, only for a full run.
import { describe, expect, it } from "vitest";
import { resultsFileOf } from "../../bench/report.js";

describe("bench results file", () => {
  it.each([
    ["a full run", { smoke: false, partial: false }, "latest.json"],
    ["a run of some sections", { smoke: false, partial: true }, "partial.json"],
    ["a smoke run", { smoke: true, partial: false }, "smoke.json"],
    ["a smoke run of some sections", { smoke: true, partial: true }, "smoke.json"],
  ])("%s writes its own file", (_, settings, file) => {
    expect(resultsFileOf(settings)).toBe(file);
  });
});

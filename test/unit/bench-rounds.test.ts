// How the bench reads a cache-hit row's rounds: the median CPU ratio, the spread
// around it (half the interquartile range), and a goal judged only on pinned rounds within ±0.1.
import { describe, expect, it } from "vitest";
import { hitTable, median } from "../../bench/report.js";
import { judgeRounds, roundRatios, spreadAround } from "../../bench/rounds.js";

describe("bench ratio of a round", () => {
  it("is the bare server's CPU a call over the measured side's in the same round", () => {
    const rounds = [
      { service: { cpuUsPerCall: 25 }, router: { cpuUsPerCall: 40 }, bare: { cpuUsPerCall: 20 } },
      { service: { cpuUsPerCall: 16 }, router: { cpuUsPerCall: 24 }, bare: { cpuUsPerCall: 12 } },
    ];
    expect(roundRatios(rounds, "service")).toEqual([0.8, 0.75]);
    expect(roundRatios(rounds, "router")).toEqual([0.5, 0.5]);
  });
});

describe("bench median", () => {
  it.each([
    [[0.8], 0.8],
    [[0.9, 0.7, 0.8], 0.8],
    [[0.6, 0.9, 0.7, 0.8], 0.8], // the upper one of an even count: a round's own figure
    [[], 0],
  ])("of %j is %f", (values, middle) => {
    expect(median(values)).toBe(middle);
  });
});

describe("bench spread of the rounds", () => {
  it.each([
    [[0.8, 0.8, 0.8], 0],
    [[0.7, 0.8, 0.9], 0.05], // quartiles 0.75 and 0.85
    [[0.1, 0.8, 0.8, 0.8, 0.8], 0], // one far round does not widen it
    [[0.6, 0.7, 0.8, 0.9, 1.0], 0.1], // quartiles 0.7 and 0.9
    [[0.8], 0],
  ])("of %j is ±%f", (ratios, spread) => {
    expect(spreadAround(ratios)).toBeCloseTo(spread, 10);
  });
});

describe("bench verdict on the rounds", () => {
  it.each([
    // [ratios, goal, pinned, ratio, met]
    [[0.82, 0.85, 0.88], 0.8, true, 0.85, "yes"],
    [[0.72, 0.76, 0.8], 0.75, true, 0.76, "yes"],
    [[0.7, 0.74, 0.78], 0.75, true, 0.74, "no"],
    [[0.6, 0.7, 0.8, 0.9, 1.0], 0.8, true, 0.8, "yes"], // ±0.1 exactly is judged
    [[0.5, 0.6, 0.8, 0.9, 1.0], 0.8, true, 0.8, "not judged (interquartile range over ±0.1)"],
    [[0.2, 0.76, 0.77, 0.78, 0.79], 0.75, true, 0.77, "yes"], // one far round is not enough
    [[0.82, 0.85, 0.88], 0.8, false, 0.85, "not judged (unpinned)"],
  ])("%j against %f (pinned: %s): ratio %f, met %s", (ratios, goal, pinned, ratio, met) => {
    const verdict = judgeRounds(ratios, goal, pinned);
    expect(verdict.ratio).toBe(ratio);
    expect(verdict.met).toBe(met);
  });

  it("judges nothing without rounds", () => {
    expect(judgeRounds([], 0.8, true).met).toBe("not judged (no rounds)");
  });
});

describe("bench cache-hit table", () => {
  it("prints a row under the columns a reader needs", () => {
    const row = {
      call: "GET over HTTP/1.1, 64 connections",
      service: "16000",
      bare: "20000 node:http",
      ratio: "0.80",
      spread: "±0.04 (0.77–0.84, 15 rounds)",
      cpu: "62 / 50",
      goal: ">= 0.8",
      met: "yes",
    };
    expect(hitTable([row]).split("\n")).toEqual([
      "| cache hit | service calls/s | bare calls/s | CPU ratio | interquartile range | CPU µs a call, service / bare | goal | met |",
      "|---|---|---|---|---|---|---|---|",
      "| GET over HTTP/1.1, 64 connections | 16000 | 20000 node:http | 0.80 | ±0.04 (0.77–0.84, 15 rounds) | 62 / 50 | >= 0.8 | yes |",
    ]);
  });
});

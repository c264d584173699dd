// How the bench prints a ratio beside its goal: never rounded onto the other side of it.
import { describe, expect, it } from "vitest";
import { ratioAgainst } from "../../bench/report.js";

describe("bench ratio against its goal", () => {
  it.each([
    // [ratio, goal, printed]
    [0.6969, 0.7, "0.697"], // "0.70" would read as met
    [0.6951, 0.7, "0.695"],
    [0.695, 0.7, "0.69"], // 0.695 is 0.69499... in binary: "0.69", below the goal either way
    [0.7, 0.7, "0.70"],
    [0.704, 0.7, "0.70"],
    [0.63, 0.85, "0.63"],
    [0.8472, 0.85, "0.847"],
    [0.8449, 0.85, "0.84"], // rounds down, below the goal either way
    [1.04, 0.7, "1.04"],
  ])("%f against %f prints %s", (ratio, goal, printed) => {
    expect(ratioAgainst(ratio, goal)).toBe(printed);
  });
});

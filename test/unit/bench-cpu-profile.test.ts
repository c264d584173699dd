// The bench's reading of a CPU profile over a window: each sample counts for
// the time until the next, only samples inside the window count, and V8's own
// entries keep their names while functions are named with file and line.
import { describe, expect, it } from "vitest";
import { type CpuProfile, selfTimes } from "../../bench/cpu-profile.js";

const frame = (functionName: string, url = "", lineNumber = 0) => ({ functionName, url, lineNumber });

// Samples at 1000 (a), 1010 (b), 1030 (a), 1060 (gc), 1100 (idle, the last).
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)") },
    { id: 2, callFrame: frame("answer", "file:///srv/dist/main.js", 41) },
    { id: 3, callFrame: frame("", "node:internal/http2/core", 9) },
    { id: 4, callFrame: frame("(garbage collector)") },
    { id: 5, callFrame: frame("(idle)") },
  ],
  startTime: 990,
  samples: [2, 3, 2, 4, 5],
  timeDeltas: [10, 10, 20, 30, 40],
};

describe("selfTimes", () => {
  it("sums each sample's time until the next by function, over the whole profile", () => {
    const times = selfTimes(profile, 0, Number.POSITIVE_INFINITY);
    expect(Object.fromEntries(times)).toEqual({
      "answer main.js:42": 10 + 30,
      "(anonymous) core:10": 20,
      "(garbage collector)": 40,
      "(idle)": 0,
    });
  });

  it("counts only the samples taken inside the window", () => {
    // 1010 and 1030 are inside; 1000 is before, 1060 is at the end (excluded).
    const times = selfTimes(profile, 1005, 1060);
    expect(Object.fromEntries(times)).toEqual({ "(anonymous) core:10": 20, "answer main.js:42": 30 });
  });
});

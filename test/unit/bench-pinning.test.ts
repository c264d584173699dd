// Where the bench runs h2load and the servers it loads: on two CPUs of their
// own where taskset can pin, unpinned and saying why where it cannot.
import { describe, expect, it } from "vitest";
import { describePinning, onCpu, parseCpuList, pinningPlan } from "../../bench/pinning.js";

describe("bench CPU list", () => {
  it.each([
    ["0-1", [0, 1]],
    ["0", [0]],
    ["0-1,4,6-7", [0, 1, 4, 6, 7]],
    ["2,3\n", [2, 3]],
  ])("%j names CPUs %j", (text, cpus) => {
    expect(parseCpuList(text)).toEqual(cpus);
  });

  it("refuses a list it cannot read", () => {
    expect(() => parseCpuList("a-b")).toThrow('unreadable CPU list "a-b"');
  });
});

describe("bench pinning plan", () => {
  it("puts h2load on the first CPU and the servers on the second of two", () => {
    expect(pinningPlan([0, 1], undefined)).toEqual({ pinned: true, clientCpu: 0, serverCpu: 1 });
  });

  it("uses the first two CPUs allowed, leaving the others unused", () => {
    expect(pinningPlan([2, 5, 6, 7], undefined)).toEqual({ pinned: true, clientCpu: 2, serverCpu: 5 });
  });

  it("runs unpinned on one CPU, and says so", () => {
    const plan = pinningPlan([0], undefined);
    expect(plan).toEqual({ pinned: false, reason: "only one CPU (0) for h2load and the servers" });
    expect(describePinning(plan)).toBe("unpinned: only one CPU (0) for h2load and the servers");
  });

  it("runs unpinned when taskset cannot pin, and says why", () => {
    const plan = pinningPlan([0, 1], "taskset was not found");
    expect(plan).toEqual({ pinned: false, reason: "taskset was not found" });
  });

  it("says where each side runs when pinned", () => {
    expect(describePinning({ pinned: true, clientCpu: 0, serverCpu: 1 })).toBe(
      "h2load pinned to CPU 0, the servers it loads to CPU 1",
    );
  });
});

describe("bench command on a CPU", () => {
  it("runs a command through taskset on the CPU given", () => {
    expect(onCpu(1, "/usr/bin/node", ["dist/main.js"])).toEqual([
      "taskset",
      ["--cpu-list", "1", "/usr/bin/node", "dist/main.js"],
    ]);
  });

  it("runs it as it is without a CPU", () => {
    expect(onCpu(undefined, "h2load", ["-c", "8"])).toEqual(["h2load", ["-c", "8"]]);
  });
});

// Which failures a stale cached result may answer: the warehouse's, never the
// caller's; the admission queue's overload marked apart from other limits.
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { isWarehouseOutage, overloadError } from "../../src/errors/index.js";
import { createAdmission } from "../../src/executor/admission.js";

describe("isWarehouseOutage", () => {
  it.each([
    ["unavailable", new ConnectError("warehouse unavailable", Code.Unavailable), true],
    ["deadline exceeded", new ConnectError("query ran past its deadline", Code.DeadlineExceeded), true],
    ["overload", overloadError("too many warehouse queries in flight"), true],
    ["another resource_exhausted", new ConnectError("rows to read past 1000", Code.ResourceExhausted), false],
    ["invalid argument", new ConnectError("interval must be one of", Code.InvalidArgument), false],
    ["permission denied", new ConnectError("project is fixed", Code.PermissionDenied), false],
    ["not found", new ConnectError("no such endpoint", Code.NotFound), false],
    ["canceled", new ConnectError("the caller went away", Code.Canceled), false],
    ["internal", new ConnectError("internal error", Code.Internal), false],
    ["a foreign error", new Error("ECONNREFUSED"), false],
  ])("%s → %s", (_name, error, outage) => {
    expect(isWarehouseOutage(error)).toBe(outage);
  });

  it("marks the admission queue full as overload, and one key's bound as the key's own", async () => {
    const admission = createAdmission({ maxConcurrent: 1, maxQueued: 0, maxPerKey: 1 });
    const hold = admission.run("a", () => new Promise(() => {}));
    const ownBound = await admission.run("a", async () => 0).catch((e: unknown) => e);
    const queueFull = await admission.run("b", async () => 0).catch((e: unknown) => e);
    expect([(ownBound as ConnectError).code, isWarehouseOutage(ownBound)]).toEqual([Code.ResourceExhausted, false]);
    expect([(queueFull as ConnectError).code, isWarehouseOutage(queueFull)]).toEqual([Code.ResourceExhausted, true]);
    expect((queueFull as ConnectError).metadata.get("retry-after")).toBe("1");
    void hold;
  });
});

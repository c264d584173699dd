// Bounded warehouse admission: running and queued limits, refusal past them,
// and callers leaving the queue.
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createAdmission } from "../../src/executor/index.js";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe("admission", () => {
  it("runs at most maxConcurrent tasks and queues at most maxQueued, refusing the rest at once", async () => {
    const admission = createAdmission({ maxConcurrent: 2, maxQueued: 1 });
    const g = gate();
    let running = 0;
    let most = 0;
    const task = async () => {
      running += 1;
      most = Math.max(most, running);
      await g.opened;
      running -= 1;
      return "done";
    };
    const outcomes = [1, 2, 3, 4].map(() => admission.run(task).catch((e: unknown) => e));
    await Promise.resolve();
    expect([admission.running, admission.queued]).toEqual([2, 1]);
    const refused = (await outcomes[3]) as ConnectError;
    expect(refused.code).toBe(Code.ResourceExhausted);
    expect(refused.metadata.get("retry-after")).toBe("1");
    g.open();
    expect(await Promise.all(outcomes.slice(0, 3))).toEqual(["done", "done", "done"]);
    expect(most).toBe(2);
    expect([admission.running, admission.queued]).toEqual([0, 0]);
  });

  it("lets a waiting caller leave the queue when it aborts", async () => {
    const admission = createAdmission({ maxConcurrent: 1, maxQueued: 5 });
    const g = gate();
    const first = admission.run(() => g.opened);
    const caller = new AbortController();
    const waiting = admission.run(async () => "never", caller.signal).catch((e: unknown) => e);
    caller.abort();
    expect(((await waiting) as ConnectError).code).toBe(Code.Canceled);
    expect(admission.queued).toBe(0);
    g.open();
    await first;
  });

  it("never lets a newcomer past the bound while the queue is served", async () => {
    const admission = createAdmission({ maxConcurrent: 1, maxQueued: 10 });
    let running = 0;
    let most = 0;
    const task = async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((r) => setImmediate(r));
      running -= 1;
    };
    const all = Array.from({ length: 10 }, () => admission.run(task));
    // Newcomers arriving while queued tasks are handed their turn.
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setImmediate(r));
      all.push(admission.run(task).catch(() => {}));
    }
    await Promise.all(all);
    expect(most).toBe(1);
  });
});

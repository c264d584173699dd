// The ledger of response bytes queued and not sent: a sender whose bytes do
// not go down for the stall timeout is stopped, a write past the connection's
// or the address's bound stops its sender, a new sender where a bound is
// already full is stopped before it writes, and a trusted proxy is bound per
// connection only.
import { describe, expect, it } from "vitest";
import { createUnsentBytes, type StopReason } from "../../src/transport/unsent-bytes.js";

function sender() {
  const s = {
    queued: 0,
    stopped: [] as StopReason[],
    destroyed: 0,
    sender: {
      queued: () => s.queued,
      stop: (reason: StopReason) => void s.stopped.push(reason),
      destroy: () => void (s.destroyed += 1),
    },
  };
  return s;
}

describe("unsent bytes", () => {
  it("stops a sender whose queued bytes do not go down for the stall timeout, and not one that sends", () => {
    let now = 0;
    const unsent = createUnsentBytes({ stallTimeoutMs: 1000, clock: () => now });
    const stalled = sender();
    const sending = sender();
    const quiet = sender();
    const w1 = unsent.watch(stalled.sender, {}, "a");
    const w2 = unsent.watch(sending.sender, {}, "b");
    unsent.watch(quiet.sender, {}, "c"); // nothing queued: a long query, a health Watch
    stalled.queued = 500;
    sending.queued = 500;
    w1.written();
    w2.written();
    for (now = 250; now <= 1000; now += 250) {
      sending.queued -= 100; // some bytes go out each time
      unsent.sweep();
    }
    expect(stalled.stopped).toEqual(["stalled"]);
    expect(sending.stopped).toEqual([]);
    expect(quiet.stopped).toEqual([]);
    // Stopped but never gone (a reset the client does not read): its connection goes a stall later.
    now = 2000;
    unsent.sweep();
    expect(stalled.destroyed).toBe(1);
    expect(unsent.queuedOn("a")).toBe(0);
  });

  it("stops the write that passes its connection's bound, then its address's, and refuses new senders there", () => {
    const unsent = createUnsentBytes({ maxPerConnection: 100, maxPerAddress: 150, clock: () => 0 });
    const connection1 = {};
    const connection2 = {};
    const a = sender();
    const b = sender();
    const c = sender();
    const wa = unsent.watch(a.sender, connection1, "x");
    const wb = unsent.watch(b.sender, connection1, "x");
    a.queued = 60;
    expect(wa.written()).toBe(true);
    b.queued = 60; // 120 on connection1
    expect(wb.written()).toBe(false);
    expect(b.stopped).toEqual(["connection bound"]);
    wb.end(); // its stream closed: its bytes no longer count
    expect(unsent.queuedOn(connection1)).toBe(60);
    const wc = unsent.watch(c.sender, connection2, "x");
    c.queued = 95; // 155 from x, 95 on connection2
    expect(wc.written()).toBe(false);
    expect(c.stopped).toEqual(["address bound"]);
    // The address is full: a new sender from it is stopped before it writes; another address is not.
    const d = sender();
    unsent.watch(d.sender, {}, "x");
    expect(d.stopped).toEqual(["address bound"]);
    const e = sender();
    unsent.watch(e.sender, {}, "y");
    expect(e.stopped).toEqual([]);
  });

  it("counts nothing for a write after its sender ended, and frees what the sender held", () => {
    const unsent = createUnsentBytes({ maxPerConnection: 100, clock: () => 0 });
    const connection = {};
    const a = sender();
    const watched = unsent.watch(a.sender, connection, "x");
    a.queued = 60;
    watched.written();
    expect([unsent.queuedOn(connection), unsent.queuedOn("x")]).toEqual([60, 60]);
    watched.end();
    a.queued = 0; // a late write finds the bytes gone: nothing is taken off twice
    expect(watched.written()).toBe(true);
    expect([unsent.queuedOn(connection), unsent.queuedOn("x")]).toEqual([0, 0]);
    // The connection's bound is still whole for the next sender.
    const b = sender();
    const next = unsent.watch(b.sender, connection, "x");
    b.queued = 101;
    expect(next.written()).toBe(false);
    expect(b.stopped).toEqual(["connection bound"]);
  });

  it("bounds a trusted proxy's connections one by one, not its address", () => {
    const unsent = createUnsentBytes({
      maxPerConnection: 100,
      maxPerAddress: 150,
      unboundedAddress: (address) => address === "proxy",
      clock: () => 0,
    });
    const senders = [sender(), sender(), sender()];
    for (const s of senders) {
      const watched = unsent.watch(s.sender, {}, "proxy");
      s.queued = 90;
      expect(watched.written()).toBe(true);
    }
    expect(unsent.queuedOn("proxy")).toBe(270);
  });

  it("asks whether an address is bounded once per sender, not on every write", () => {
    const asked: string[] = [];
    const unsent = createUnsentBytes({
      maxPerAddress: 150,
      unboundedAddress: (address) => {
        asked.push(address);
        return false;
      },
      clock: () => 0,
    });
    const s = sender();
    const watched = unsent.watch(s.sender, {}, "a");
    for (const queued of [10, 20, 30]) {
      s.queued = queued;
      expect(watched.written()).toBe(true);
    }
    expect(asked).toEqual(["a"]);
    // The answer still counts: past the address bound, the sender is stopped.
    s.queued = 151;
    expect(watched.written()).toBe(false);
  });
});

// The HTTP/2 stream budget of each client address counts the streams open on
// all its sessions together: past it a stream is refused, a closed one gives
// its place back, and a trusted proxy's sessions are not bound by it.
import { EventEmitter } from "node:events";
import type { Http2Server, Http2Session } from "node:http2";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/observability/index.js";
import { trustedProxies } from "../../src/transport/index.js";
import { budgetStreams } from "../../src/transport/server/index.js";

/** A server that hands out sessions of the addresses asked, as node:http2 emits them. */
function fakeServer(options: { maxStreamsPerAddress: number; trusted?: string[] }) {
  const server = new EventEmitter();
  const budget = budgetStreams(server as unknown as Http2Server, {
    maxStreamsPerAddress: options.maxStreamsPerAddress,
    maxConcurrentStreams: 100,
    trustedProxies: trustedProxies(options.trusted ?? []),
    logger: silentLogger,
  });
  const session = (address: string) => {
    // The concurrent streams announced to the session after its first SETTINGS, in order.
    const announced: number[] = [];
    const emitter = Object.assign(new EventEmitter(), {
      socket: { remoteAddress: address },
      destroyed: false,
      closed: false,
      settings: (settings: { maxConcurrentStreams: number }) => void announced.push(settings.maxConcurrentStreams),
    });
    const session = emitter as unknown as Http2Session;
    server.emit("session", session);
    return { streams: budget.of(session), announced, close: () => emitter.emit("close") };
  };
  return { session };
}

/** Opens `count` streams on `streams`: how many it took. */
function open(streams: { opened(): boolean }, count: number): number {
  let taken = 0;
  for (let i = 0; i < count; i++) if (streams.opened()) taken += 1;
  return taken;
}

describe("stream budget per address", () => {
  it("takes streams on any number of sessions of one address until the streams open reach the budget", () => {
    const server = fakeServer({ maxStreamsPerAddress: 10 });
    const sessions = Array.from({ length: 40 }, () => server.session("10.0.0.1"));
    // Forty sessions, as many as the budget's streams and more: the sessions together take ten, no more.
    expect(sessions.map(({ streams }) => open(streams, 1)).reduce((a, b) => a + b, 0)).toBe(10);
    expect(open(sessions[0]!.streams, 5)).toBe(0);
    // Another address has its own budget.
    expect(open(server.session("10.0.0.2").streams, 10)).toBe(10);
  });

  it("gives a closed stream's place back to any session of the address", () => {
    const server = fakeServer({ maxStreamsPerAddress: 4 });
    const [a, b] = [server.session("10.0.0.1"), server.session("10.0.0.1")];
    expect(open(a.streams, 6)).toBe(4);
    a.streams.closed();
    a.streams.closed();
    expect(open(b.streams, 3)).toBe(2);
  });

  it("keeps counting the streams still open after their session's close, and starts afresh once all are gone", () => {
    const server = fakeServer({ maxStreamsPerAddress: 3 });
    const first = server.session("10.0.0.1");
    expect(open(first.streams, 3)).toBe(3);
    first.close();
    // Its streams close after it: until then a new session of the address shares what they hold.
    const second = server.session("10.0.0.1");
    expect(open(second.streams, 1)).toBe(0);
    first.streams.closed();
    expect(open(second.streams, 1)).toBe(1);
    first.streams.closed();
    first.streams.closed();
    second.streams.closed();
    second.close();
    expect(open(server.session("10.0.0.1").streams, 5)).toBe(3);
  });

  it("announces each session of an address at its budget the streams it holds, and raises them back once well under it", () => {
    const server = fakeServer({ maxStreamsPerAddress: 10 });
    const [a, b] = [server.session("10.0.0.1"), server.session("10.0.0.1")];
    expect(open(a.streams, 6)).toBe(6);
    expect(a.announced).toEqual([]);
    expect(open(b.streams, 4)).toBe(4);
    expect([a.announced, b.announced]).toEqual([[6], [4]]);
    // A session opened while the address is at its budget may open none.
    const c = server.session("10.0.0.1");
    expect(c.announced).toEqual([0]);
    // One closed stream leaves the address over nine tenths of its budget: nothing is announced again.
    a.streams.closed();
    expect(open(c.streams, 1)).toBe(1);
    expect([a.announced, b.announced, c.announced]).toEqual([[6], [4], [0]]);
    c.streams.closed();
    a.streams.closed();
    expect([a.announced, b.announced, c.announced]).toEqual([
      [6, 100],
      [4, 100],
      [0, 100],
    ]);
    // Another address was never announced anything.
    expect(server.session("10.0.0.2").announced).toEqual([]);
  });

  it("does not bind the sessions of a trusted proxy", () => {
    const server = fakeServer({ maxStreamsPerAddress: 2, trusted: ["10.0.0.0/8"] });
    expect(open(server.session("10.1.2.3").streams, 500)).toBe(500);
    expect(open(server.session("192.0.2.1").streams, 500)).toBe(2);
  });
});

// Reading a call's body up to a bound for the fast path: a body read whole is
// handed on once, even when its stream closes after; a body past the bound or
// cut off is handed on once as not whole, with its stream paused and the rest
// left for the router, which reads the chunks again and then the rest.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { type ReadBody, readBody, replayedBody } from "../../src/transport/rpc/request-body.js";

function read(stream: PassThrough, maxBytes: number) {
  const calls: ReadBody[] = [];
  readBody(stream, maxBytes, (body) => calls.push(body));
  return calls;
}

const text = (chunks: Uint8Array[]) => Buffer.concat(chunks).toString();

describe("readBody", () => {
  it("hands on a body read whole once, and not again when its stream closes", async () => {
    const stream = new PassThrough();
    const calls = read(stream, 10);
    stream.write("abc");
    stream.end("de");
    await new Promise((resolve) => stream.once("close", resolve));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.whole).toBe(true);
    expect(calls[0]!.length).toBe(5);
    expect(text(calls[0]!.chunks)).toBe("abcde");
  });

  it("stops at the first chunk past the bound, pauses, and leaves the rest for the router's replay", async () => {
    const stream = new PassThrough();
    const calls = read(stream, 4);
    stream.write("abc");
    stream.write("def"); // 6 bytes: past 4
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.whole).toBe(false);
    expect(text(calls[0]!.chunks)).toBe("abcdef");
    expect(stream.isPaused()).toBe(true);
    expect(stream.listenerCount("data")).toBe(0);
    stream.end("ghi");
    const replayed: Uint8Array[] = [];
    for await (const chunk of replayedBody(calls[0]!, stream)) replayed.push(chunk);
    expect(text(replayed)).toBe("abcdefghi");
    expect(calls).toHaveLength(1);
  });

  it("hands on a body cut off before its end once, as not whole", async () => {
    const stream = new PassThrough();
    const calls = read(stream, 10);
    stream.write("ab");
    await new Promise((resolve) => setImmediate(resolve));
    stream.destroy();
    await new Promise((resolve) => stream.once("close", resolve));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.whole).toBe(false);
    expect(text(calls[0]!.chunks)).toBe("ab");
  });
});

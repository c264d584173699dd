import { describe, expect, it } from "vitest";
import {
  exactBuffer,
  KeptBodies,
  keptBodiesOverheadBytes,
  keptBodyOverheadBytes,
} from "../../src/endpoints/kept-bodies.js";

describe("KeptBodies", () => {
  it("counts the first body with the map, its own buffer, its name in UTF-16 and a body's overhead", () => {
    const bodies = new KeptBodies();
    const body = Buffer.allocUnsafeSlow(100);
    expect(bodies.keep("csv", body)).toBe(256 + 100 + 6 + 320);
    expect(keptBodiesOverheadBytes).toBe(256);
    expect(keptBodyOverheadBytes).toBe(320);
  });

  it("counts the whole ArrayBuffer a view keeps alive, not the view's length", () => {
    const bodies = new KeptBodies();
    bodies.keep("json", Buffer.allocUnsafeSlow(1));
    const view = Buffer.allocUnsafeSlow(16_384).subarray(0, 170);
    expect(bodies.keep("json+gzip", view)).toBe(16_384 + 18 + 320);
  });

  it("counts a replaced body off", () => {
    const bodies = new KeptBodies();
    bodies.keep("csv", Buffer.allocUnsafeSlow(1_000));
    expect(bodies.keep("csv", Buffer.allocUnsafeSlow(400))).toBe(-600);
    expect(bodies.get("csv")?.length).toBe(400);
  });
});

describe("exactBuffer", () => {
  it("copies a view into a buffer of exactly its length, with the same bytes", () => {
    const view = Buffer.from("0123456789").subarray(2, 5);
    const own = exactBuffer(view);
    expect(own.buffer.byteLength).toBe(3);
    expect(own.toString()).toBe("234");
  });

  it("answers a buffer that already owns exactly its memory as it is", () => {
    const own = Buffer.allocUnsafeSlow(8);
    expect(exactBuffer(own)).toBe(own);
  });
});

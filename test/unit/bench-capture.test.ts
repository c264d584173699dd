// What the bench accepts as a captured cache hit before it measures a
// protocol: a 200 marked HIT, and for gRPC and gRPC-Web grpc-status 0.
import { describe, expect, it } from "vitest";
import { type CapturedAnswer, cacheHitProblems } from "../../bench/capture.js";

/** A gRPC-Web frame: flag byte, 4-byte big-endian length, payload. */
const frame = (flag: number, payload: Buffer) => {
  const head = Buffer.alloc(5);
  head[0] = flag;
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
};
const hit = (contentType: string, extra: Partial<CapturedAnswer> = {}): CapturedAnswer => ({
  http: "2",
  method: "POST",
  path: "/svc/Method",
  contentType,
  status: 200,
  headers: [["x-cache", "HIT"]],
  body: Buffer.alloc(0),
  ...extra,
});

describe("a captured cache hit", () => {
  it("is a 200 with x-cache HIT", () => {
    expect(cacheHitProblems(hit(""))).toEqual([]);
    expect(cacheHitProblems(hit("", { status: 404, headers: [["x-cache", "MISS"]] }))).toEqual([
      "status 404",
      "x-cache MISS, not HIT",
    ]);
  });

  it("of gRPC has grpc-status 0 in its trailers", () => {
    expect(cacheHitProblems(hit("application/grpc", { trailers: [["grpc-status", "0"]] }))).toEqual([]);
    expect(cacheHitProblems(hit("application/grpc", { trailers: [["grpc-status", "13"]] }))).toEqual([
      "grpc-status 13",
    ]);
    expect(cacheHitProblems(hit("application/grpc"))).toEqual(["grpc-status undefined"]);
  });

  it("of gRPC-Web has grpc-status 0 in the trailer frame after its message", () => {
    const message = frame(0, Buffer.from([1, 2, 3]));
    const body = (status: string) => Buffer.concat([message, frame(0x80, Buffer.from(`grpc-status: ${status}\r\n`))]);
    expect(cacheHitProblems(hit("application/grpc-web+proto", { body: body("0") }))).toEqual([]);
    expect(cacheHitProblems(hit("application/grpc-web+proto", { body: body("14") }))).toEqual([
      "grpc-web trailer grpc-status 14",
    ]);
    expect(cacheHitProblems(hit("application/grpc-web+proto", { body: message }))).toEqual([
      "grpc-web trailer grpc-status undefined",
    ]);
  });
});

// What the functions connect marks private do, pinned: every RPC answer
// written outside the router (a refusal before the body, an unknown
// procedure) uses them, so an upgrade of connect that changes one fails here.
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import {
  codeToHttpStatus,
  encodeEnvelope,
  endStreamToJson,
  errorToJsonBytes,
  parseConnectContentType,
  parseGrpcContentType,
  parseGrpcWebContentType,
  parseTimeout,
  setTrailerStatus,
  trailerSerialize,
} from "../../src/transport/rpc/connect-internals.js";
import { connectEndStream, connectUnaryError } from "../../src/transport/rpc/protocol-connect.js";
import { grpcStatusFields } from "../../src/transport/rpc/protocol-grpc.js";
import { grpcWebTrailerFrame } from "../../src/transport/rpc/protocol-grpc-web.js";

const refused = () =>
  new ConnectError("rate limit: 5 a second, retry in 1 s", Code.ResourceExhausted, { "retry-after": "1" });

describe("gRPC status fields", () => {
  it("carry the code, the message percent-encoded as encodeURIComponent does, and the metadata", () => {
    expect(grpcStatusFields(refused())).toEqual({
      "retry-after": "1",
      "grpc-status": "8",
      "grpc-message": "rate%20limit%3A%205%20a%20second%2C%20retry%20in%201%20s",
    });
    expect(Object.fromEntries(setTrailerStatus(new Headers(), refused()))).toEqual(grpcStatusFields(refused()));
  });

  it("add grpc-status-details-bin when the error has details", () => {
    const error = new ConnectError("bad", Code.InvalidArgument);
    error.details.push({ type: "google.rpc.BadRequest", value: new Uint8Array([1, 2]) });
    const fields = grpcStatusFields(error);
    // google.rpc.Status {code: 3, message: "bad", details: [Any]} in unpadded base64.
    expect(fields["grpc-status"]).toBe("3");
    expect(Buffer.from(fields["grpc-status-details-bin"]!, "base64").subarray(0, 7)).toEqual(
      Buffer.from([0x08, 0x03, 0x12, 0x03, 0x62, 0x61, 0x64]),
    );
  });

  it("say 0 and nothing else on success", () => {
    expect(grpcStatusFields(undefined)).toEqual({ "grpc-status": "0" });
  });
});

describe("gRPC-Web trailer frame", () => {
  it("is the fields as header lines in an envelope flagged 0x80", () => {
    const lines = "grpc-status: 0\r\nx-rows-read: 7\r\n";
    const expected = Buffer.concat([Buffer.from([0x80, 0, 0, 0, lines.length]), Buffer.from(lines)]);
    expect(Buffer.from(grpcWebTrailerFrame({ "grpc-status": "0", "x-rows-read": "7" }))).toEqual(expected);
    expect(Buffer.from(trailerSerialize(new Headers({ a: "b" })))).toEqual(Buffer.from("a: b\r\n"));
  });
});

describe("Connect errors", () => {
  it("are the JSON body with the code's HTTP status and the metadata as headers", () => {
    const answer = connectUnaryError(refused());
    expect(answer.status).toBe(429);
    expect(answer.headers).toEqual({ "retry-after": "1" });
    expect(JSON.parse(Buffer.from(answer.body).toString())).toEqual({
      code: "resource_exhausted",
      message: "rate limit: 5 a second, retry in 1 s",
    });
    expect(Buffer.from(errorToJsonBytes(refused(), undefined))).toEqual(Buffer.from(answer.body));
  });

  it.each([
    [Code.Unauthenticated, 401],
    [Code.PermissionDenied, 403],
    [Code.NotFound, 404],
    [Code.InvalidArgument, 400],
    [Code.Unimplemented, 501],
    [Code.Unavailable, 503],
    [Code.DeadlineExceeded, 504],
  ])("map code %i to HTTP %i", (code, status) => {
    expect(codeToHttpStatus(code)).toBe(status);
  });

  it("end a stream with the error and the metadata in the end-of-stream message, flagged 2", () => {
    const frame = Buffer.from(connectEndStream(refused()));
    expect(frame[0]).toBe(2);
    expect(frame.readUInt32BE(1)).toBe(frame.length - 5);
    expect(JSON.parse(frame.subarray(5).toString())).toEqual({
      error: { code: "resource_exhausted", message: "rate limit: 5 a second, retry in 1 s" },
      metadata: { "retry-after": ["1"] },
    });
    expect(endStreamToJson(new Headers(), undefined, undefined)).toEqual({});
  });
});

describe("envelopes", () => {
  it("are a flags byte, a big-endian length, then the bytes", () => {
    expect(Buffer.from(encodeEnvelope(1, new Uint8Array([9, 8, 7])))).toEqual(Buffer.from([1, 0, 0, 0, 3, 9, 8, 7]));
  });
});

describe("deadlines", () => {
  it.each([
    ["5S", 5000],
    ["250m", 250],
    ["2M", 120_000],
    ["1H", 3_600_000],
    ["1000u", 1],
  ])("read grpc-timeout %s as %i ms", (value, ms) => {
    expect(parseTimeout(value, Number.MAX_SAFE_INTEGER).timeoutMs).toBe(ms);
  });

  it("refuse a malformed grpc-timeout as INVALID_ARGUMENT", () => {
    expect(parseTimeout("soon", 1000).error?.code).toBe(Code.InvalidArgument);
    expect(parseTimeout("123456789S", 1000).error?.code).toBe(Code.InvalidArgument); // nine digits
  });
});

describe("content types", () => {
  it.each([
    ["application/grpc", "grpc", true],
    ["application/grpc+json", "grpc", false],
    ["application/grpc-web+proto", "grpc-web", true],
    ["application/json; charset=utf-8", "connect", false],
    ["application/proto", "connect", true],
  ] as const)("read %s as %s (binary: %s)", (type, protocol, binary) => {
    const parsed = {
      grpc: parseGrpcContentType,
      "grpc-web": parseGrpcWebContentType,
      connect: parseConnectContentType,
    }[protocol](type);
    expect(parsed?.binary).toBe(binary);
  });
});

// The fast path reads a unary call as connect-node reads it, or leaves it to
// the router: protocol, encoding and negotiated compression from the
// headers, the message from one plain envelope or a Connect body.
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";
import { describe, expect, it } from "vitest";
import { FunctionsService } from "../../src/gen/functions/v1/functions_pb.js";
import { messageOfBody, messageOfQuery, unaryRequestForm } from "../../src/transport/rpc/unary-request.js";

const method = FunctionsService.method.getInvocationStats;
const available = [compressionGzip, compressionBrotli];
const formOf = (method_: string, headers: Record<string, string | string[]>, http = 2, url = "/x") =>
  unaryRequestForm({ method: method_, url, headers, httpVersionMajor: http }, method, available);
const brief = (form: ReturnType<typeof formOf>) =>
  form && { protocol: form.protocol, binary: form.binary, get: form.get, compression: form.compression?.name ?? null };

describe("unaryRequestForm, asked many times", () => {
  it("reads the same forms when the values it remembers are full and when they repeat", () => {
    // Past the 64 values remembered, each is read afresh: the answers must not change.
    for (let i = 0; i < 100; i++) {
      expect(
        formOf("POST", { "content-type": `application/x-${i}`, "accept-encoding": `x-${i}, gzip` }),
      ).toBeUndefined();
    }
    for (let round = 0; round < 2; round++) {
      expect(brief(formOf("POST", { "content-type": "application/json", "accept-encoding": "br" }, 1))).toEqual({
        protocol: "connect",
        binary: false,
        get: false,
        compression: "br",
      });
      expect(
        brief(formOf("POST", { "content-type": "application/grpc-web+json", "grpc-accept-encoding": "gzip" }, 1)),
      ).toEqual({
        protocol: "grpc-web",
        binary: false,
        get: false,
        compression: "gzip",
      });
      expect(formOf("POST", { "content-type": "application/grpc" }, 1)).toBeUndefined(); // gRPC needs HTTP/2
      expect(formOf("POST", { "content-type": "application/grpc-web-text" }, 1)).toBeUndefined();
      expect(brief(formOf("POST", { "content-type": "application/proto", "accept-encoding": "x-1, gzip" }, 1))).toEqual(
        {
          protocol: "connect",
          binary: true,
          get: false,
          compression: "gzip",
        },
      );
    }
  });
});

describe("unaryRequestForm", () => {
  it.each([
    [
      "gRPC",
      "POST",
      { "content-type": "application/grpc" },
      { protocol: "grpc", binary: true, get: false, compression: null },
    ],
    [
      "gRPC JSON",
      "POST",
      { "content-type": "application/grpc+json" },
      { protocol: "grpc", binary: false, get: false, compression: null },
    ],
    [
      "gRPC, gzip accepted",
      "POST",
      { "content-type": "application/grpc", "grpc-accept-encoding": "identity, gzip" },
      { protocol: "grpc", binary: true, get: false, compression: "gzip" },
    ],
    [
      "gRPC-Web",
      "POST",
      { "content-type": "application/grpc-web+proto" },
      { protocol: "grpc-web", binary: true, get: false, compression: null },
    ],
    [
      "Connect JSON with a charset",
      "POST",
      { "content-type": "application/json; charset=utf-8" },
      { protocol: "connect", binary: false, get: false, compression: null },
    ],
    [
      "Connect binary, br accepted",
      "POST",
      { "content-type": "application/proto", "accept-encoding": "br, gzip" },
      { protocol: "connect", binary: true, get: false, compression: "br" },
    ],
  ])("reads %s", (_name, verb, headers, expected) => {
    expect(brief(formOf(verb, headers))).toEqual(expected);
  });

  it.each([
    ["a compressed gRPC request", "POST", { "content-type": "application/grpc", "grpc-encoding": "gzip" }],
    ["a malformed gRPC deadline", "POST", { "content-type": "application/grpc", "grpc-timeout": "soon" }],
    ["gRPC-Web text", "POST", { "content-type": "application/grpc-web-text" }],
    ["a Connect stream", "POST", { "content-type": "application/connect+json" }],
    ["a compressed Connect request", "POST", { "content-type": "application/json", "content-encoding": "gzip" }],
    ["a malformed Connect deadline", "POST", { "content-type": "application/json", "connect-timeout-ms": "-1" }],
    ["a repeated accept header", "POST", { "content-type": "application/json", "accept-encoding": ["gzip", "br"] }],
    ["plain HTTP", "POST", { "content-type": "text/plain" }],
    ["a PUT", "PUT", { "content-type": "application/json" }],
  ])("leaves %s to the router", (_name, verb, headers) => {
    expect(formOf(verb, headers)).toBeUndefined();
  });

  it("leaves gRPC over HTTP/1.1 to the router, whose trailers need HTTP/2", () => {
    expect(formOf("POST", { "content-type": "application/grpc" }, 1)).toBeUndefined();
    expect(formOf("POST", { "content-type": "application/grpc-web" }, 1)).toBeDefined();
  });

  it("reads a Connect GET by its query, and leaves one with compression or a content type to the router", () => {
    expect(brief(formOf("GET", {}, 1, "/x?connect=v1&encoding=json&message=%7B%7D"))).toEqual({
      protocol: "connect",
      binary: false,
      get: true,
      compression: null,
    });
    expect(formOf("GET", {}, 1, "/x?encoding=proto&compression=gzip&message=x")).toBeUndefined();
    expect(formOf("GET", { "content-type": "application/json" }, 1, "/x?encoding=json")).toBeUndefined();
    expect(formOf("GET", {}, 1, "/x?encoding=xml")).toBeUndefined();
  });
});

describe("messageOfBody and messageOfQuery", () => {
  const grpc = { protocol: "grpc", binary: true, get: false, compression: null } as const;
  const framed = (flags: number, message: number[], length = message.length) =>
    Buffer.from([flags, 0, 0, 0, length, ...message]);

  it("takes the message of exactly one uncompressed envelope, within the bound", () => {
    expect(messageOfBody(grpc, framed(0, [1, 2, 3]), 10)).toEqual(Buffer.from([1, 2, 3]));
    expect(messageOfBody(grpc, framed(1, [1, 2, 3]), 10)).toBeUndefined(); // compressed
    expect(messageOfBody(grpc, framed(0, [1, 2, 3], 2), 10)).toBeUndefined(); // bytes after the envelope
    expect(messageOfBody(grpc, framed(0, [1, 2, 3], 4), 10)).toBeUndefined(); // cut short
    expect(messageOfBody(grpc, framed(0, [1, 2, 3]), 2)).toBeUndefined(); // over the bound
    expect(messageOfBody(grpc, Buffer.from([0, 0]), 10)).toBeUndefined();
  });

  it("reads a Connect GET's message as text or base64 (standard or URL-safe), and leaves bad base64 to the router", () => {
    expect(messageOfQuery("/x?message=%7B%22a%22%3A1%7D", 100)?.toString()).toBe('{"a":1}');
    expect(messageOfQuery("/x?base64=1&message=-_8", 100)).toEqual(Buffer.from([0xfb, 0xff]));
    expect(messageOfQuery("/x?base64=1&message=%2B%2F8%3D", 100)).toEqual(Buffer.from([0xfb, 0xff]));
    expect(messageOfQuery("/x?base64=1&message=%25%25", 100)).toBeUndefined();
  });
});

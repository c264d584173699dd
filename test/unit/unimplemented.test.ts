// How a call of something not served is recognised and worded: the protocol
// from method, content type and query; the message; grpc-message encoding.
import { describe, expect, it } from "vitest";
import { rpcProtocolOf, unimplementedMessage } from "../../src/transport/index.js";

describe("rpcProtocolOf", () => {
  it.each([
    ["POST", "application/grpc", "/a.B/C", "grpc"],
    ["POST", "application/grpc+proto", "/a.B/C", "grpc"],
    ["POST", "application/grpc+json", "/a.B/C", "grpc"],
    ["POST", "application/grpc-web+proto", "/a.B/C", "grpc-web"],
    ["POST", "application/grpc-web-text", "/a.B/C", "grpc-web"],
    ["POST", "application/grpc-web", "/a.B/C", "grpc-web"],
    ["POST", "application/json", "/a.B/C", "connect"],
    ["POST", "application/json; charset=utf-8", "/a.B/C", "connect"],
    ["POST", "application/proto", "/a.B/C", "connect"],
    ["POST", "application/connect+json", "/a.B/C", "connect-stream"],
    ["POST", "application/connect+proto", "/a.B/C", "connect-stream"],
    ["GET", undefined, "/a.B/C?connect=v1&encoding=json&message=%7B%7D", "connect"],
    ["GET", undefined, "/a.B/C?encoding=json&connect=v1", "connect"],
    ["GET", undefined, "/a.B/C?connect=v2", undefined],
    ["GET", undefined, "/nope", undefined],
    ["POST", "text/plain", "/nope", undefined],
    ["POST", "application/grpcx", "/nope", undefined],
    ["PUT", "application/json", "/nope", undefined],
  ])("%s with %s to %s is %s", (method, contentType, url, protocol) => {
    expect(rpcProtocolOf(method, contentType, url)).toBe(protocol);
  });
});

describe("unimplementedMessage", () => {
  const served = new Set(["functions.v1.FunctionsService"]);
  it.each([
    ["/nope.v1.Nope/Call", "unknown service nope.v1.Nope"],
    ["/functions.v1.FunctionsService/Nope", "unknown method Nope of service functions.v1.FunctionsService"],
    ["/a/b/c", "no procedure at /a/b/c"],
    ["/", "no procedure at /"],
  ])("words %s as %s", (path, message) => {
    expect(unimplementedMessage(path, served)).toBe(message);
  });
});

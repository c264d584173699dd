// The calls that need no API key, named by request path: gRPC health and
// reflection methods, nothing else.
import { describe, expect, it } from "vitest";
import { isKeylessPath } from "../../src/auth/index.js";

describe("isKeylessPath", () => {
  it.each([
    ["/grpc.health.v1.Health/Check", true],
    ["/grpc.health.v1.Health/Watch?x=1", true],
    ["/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", true],
    ["/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", true],
    ["/grpc.health.v1.Health/", false],
    ["/grpc.health.v1.Health", false],
    ["/grpc.health.v1.Health/Check/more", false],
    ["/functions.v1.FunctionsService/GetInvocationStats", false],
    ["/api/endpoints/logs.all", false],
    ["grpc.health.v1.Health/Check", false],
  ])("%s is %s", (path, keyless) => {
    expect(isKeylessPath(path)).toBe(keyless);
  });
});

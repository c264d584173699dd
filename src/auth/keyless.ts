// The calls that need no API key: gRPC server reflection and health, like
// /healthz. One definition, for the Connect interceptor and for any check
// that runs on the request headers before a body is read.
import { Health } from "../gen/grpc/health/v1/health_pb.js";
import { ServerReflection } from "../gen/grpc/reflection/v1/reflection_pb.js";
import { ServerReflection as ServerReflectionV1Alpha } from "../gen/grpc/reflection/v1alpha/reflection_pb.js";

/** Full names of the services whose every method is callable without a key. */
export const keylessServices: ReadonlySet<string> = new Set([
  Health.typeName,
  ServerReflection.typeName,
  ServerReflectionV1Alpha.typeName,
]);

/**
 * True when a request path (`/grpc.health.v1.Health/Check`, query string
 * allowed) calls a method of a keyless service.
 */
export function isKeylessPath(target: string): boolean {
  const queryAt = target.indexOf("?");
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  const end = path.indexOf("/", 1);
  if (!path.startsWith("/") || end < 0) return false;
  const method = path.slice(end + 1);
  return keylessServices.has(path.slice(1, end)) && method.length > 0 && !method.includes("/");
}

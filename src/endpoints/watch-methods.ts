// Watch methods: beside each saved query's unary `Get<X>`, a server-streaming
// `Watch<X>` with the same request and response messages serves its results
// over time. The pairing is by name, so the proto states it once: the watch
// carries no endpoint option of its own.
import type { DescMethod, DescMethodServerStreaming, DescService } from "@bufbuild/protobuf";

const watchPrefix = "Watch";
const getPrefix = "Get";

/**
 * Whether `method` is the watch of a saved query of `service`. Throws when a
 * `Watch<X>` is not server streaming, has no `Get<X>` beside it, or differs
 * from it in request or response: a mistake of `proto/` stops start-up.
 */
export function isWatchMethod(service: DescService, method: DescMethod): boolean {
  if (!method.name.startsWith(watchPrefix)) return false;
  const name = `${service.typeName}.${method.name}`;
  const unary = service.methods.find((m) => m.name === getPrefix + method.name.slice(watchPrefix.length));
  if (unary === undefined) throw new Error(`${name} has no ${getPrefix} method beside it`);
  if (method.methodKind !== "server_streaming") throw new Error(`${name}: watch methods are server streaming`);
  if (method.input !== unary.input || method.output !== unary.output) {
    throw new Error(`${name} must take and return the messages of ${unary.name}`);
  }
  return true;
}

/** The watch method paired with the saved query's unary `method`, if `service` declares one. */
export function watchMethodOf(service: DescService, method: DescMethod): DescMethodServerStreaming | undefined {
  if (!method.name.startsWith(getPrefix)) return undefined;
  const watch = service.methods.find((m) => m.name === watchPrefix + method.name.slice(getPrefix.length));
  return watch !== undefined && isServerStreaming(watch) ? watch : undefined;
}

function isServerStreaming(method: DescMethod): method is DescMethodServerStreaming {
  return method.methodKind === "server_streaming";
}

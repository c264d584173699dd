// A response as the cache keeps it: the JSON body alone, the message made
// from it (proto3 JSON, which the body is) the first time a Connect or gRPC
// caller asks, and the bodies made later counted in the cache's bound.
import { fromJsonString, type Message } from "@bufbuild/protobuf";
import { converting, type Computation, type ComputedResponse } from "./computed-response.js";
import { KeptBodies } from "./kept-bodies.js";
import type { Endpoint } from "./registry.js";

/** `grew` is told each change of the bytes kept besides the JSON body. */
export function cachedResponse(
  endpoint: Endpoint,
  json: Buffer,
  computation: Computation,
  grew: (response: ComputedResponse, bytes: number) => void,
): ComputedResponse {
  let message: Message | undefined;
  const bodies = new KeptBodies();
  const response: ComputedResponse = {
    message: () => (message ??= converting(() => fromJsonString(endpoint.method.output, json.toString()))),
    json: () => json,
    body: (name) => bodies.get(name),
    keepBody: (name, body) => grew(response, bodies.keep(name, body)),
    computation,
  };
  return response;
}

// A response as the cache keeps it: the JSON body alone, the message made
// from it (proto3 JSON, which the body is) the first time a Connect or gRPC
// caller asks, its rows' tag, and the bodies made later counted in the
// cache's bound, each copied into a buffer of its own size (kept-bodies.ts).
import { fromJsonString, type Message } from "@bufbuild/protobuf";
import { converting, type Computation, type ComputedResponse } from "./computed-response.js";
import { exactBuffer, KeptBodies } from "./kept-bodies.js";
import type { Endpoint } from "./registry.js";

/** What the cache keeps of a computed response: its JSON body and its rows' tag (which is not always the body's hash alone: rows-tag.ts). */
export interface KeptResult {
  json: Buffer;
  rowsTag: string;
}

/**
 * `kept.json` must own its memory (exactBuffer), since the cache counts its
 * length; `grew` is told each change of the bytes kept besides it.
 */
export function cachedResponse(
  endpoint: Endpoint,
  kept: KeptResult,
  computation: Computation,
  grew: (response: ComputedResponse, bytes: number) => void,
): ComputedResponse {
  let message: Message | undefined;
  const bodies = new KeptBodies();
  const { json, rowsTag } = kept;
  const response: ComputedResponse = {
    message: () => (message ??= converting(() => fromJsonString(endpoint.method.output, json.toString()))),
    json: () => json,
    body: (name) => bodies.get(name),
    keepBody: (name, body) => grew(response, bodies.keep(name, exactBuffer(body))),
    rowsTag: () => rowsTag,
    computation,
  };
  return response;
}

// The results of one saved query over time, by the transport the user chose:
// for GET a fetch with `Accept: text/event-stream` read by a small SSE
// parser (docs/http-api.md, Event streams); for Connect and gRPC-Web the
// server-streaming Watch method by connect-web (docs/grpc.md, Watch streams).
// Each message is the rows as the GET API writes them; the stream ends when
// `signal` aborts, and a refusal is thrown as a LiveError.
import { type DescMessage, type DescMethodServerStreaming, fromJson, type JsonObject } from "@bufbuild/protobuf";
import { ConnectError, createClient } from "@connectrpc/connect";
import { savedQueryServices } from "../src/endpoints/services.js";
import { codeName, getPath, jsonRowsOf, type Row, transportOf } from "./calls.js";
import type { ListedEndpoint } from "./listing.js";
import { readServerSentEvents } from "./sse-reader.js";
import type { TransportName } from "./view-address.js";

/** One message of a watch: a whole result, or for the logs.all tail only rows newer than any sent. */
export interface LiveMessage {
  rows: Row[];
  nextPageToken?: string | undefined;
}

/** A stream refused or ended by the service, with its code name (`unavailable`). */
export class LiveError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

/** The messages of a watch of `endpoint` with `parameters`, until `signal` aborts (then it simply ends). */
export async function* watchEndpoint(
  endpoint: ListedEndpoint,
  parameters: Record<string, string>,
  transport: TransportName,
  key: string,
  signal: AbortSignal,
  base = new URL(".", document.baseURI).href,
): AsyncGenerator<LiveMessage> {
  try {
    if (transport === "get") yield* watchGet(base, endpoint, parameters, key, signal);
    else yield* watchRpc(base, endpoint, parameters, transport, key, signal);
  } catch (thrown) {
    if (signal.aborted) return;
    if (thrown instanceof LiveError) throw thrown;
    const error = ConnectError.from(thrown);
    throw new LiveError(codeName(error.code), error.rawMessage);
  }
}

async function* watchGet(
  base: string,
  endpoint: ListedEndpoint,
  parameters: Record<string, string>,
  key: string,
  signal: AbortSignal,
): AsyncGenerator<LiveMessage> {
  const url = new URL(getPath(endpoint, parameters), base).href;
  const response = await fetch(url, {
    headers: { "x-api-key": key, accept: "text/event-stream" },
    cache: "no-store",
    signal,
  });
  if (!response.ok || response.body === null) throw errorOf(await response.text().catch(() => ""), response.status);
  for await (const event of readServerSentEvents(response.body)) {
    if (event.event === "error") throw errorOf(event.data, response.status);
    if (event.event !== "result") continue;
    const body = JSON.parse(event.data) as { result?: Row[]; next_page_token?: string };
    yield { rows: body.result ?? [], nextPageToken: body.next_page_token };
  }
  if (!signal.aborted) throw new LiveError("unavailable", "the stream ended");
}

function errorOf(text: string, status: number): LiveError {
  try {
    const { error } = JSON.parse(text) as { error: { code: string; message: string } };
    return new LiveError(error.code, error.message);
  } catch {
    return new LiveError("unknown", `HTTP ${status}`);
  }
}

async function* watchRpc(
  base: string,
  endpoint: ListedEndpoint,
  parameters: Record<string, string>,
  transport: TransportName,
  key: string,
  signal: AbortSignal,
): AsyncGenerator<LiveMessage> {
  const method = watchMethodOf(endpoint);
  if (method === undefined) throw new LiveError("unimplemented", `${endpoint.name} has no watch method on this page`);
  const client = createClient(method.parent, transportOf(transport, base.replace(/\/$/, ""))) as unknown as Record<
    string,
    (request: unknown, options: object) => AsyncIterable<unknown>
  >;
  const request = fromJson(method.input, parameters as JsonObject, { ignoreUnknownFields: false });
  for await (const response of client[method.localName]!(request, { headers: { "x-api-key": key }, signal })) {
    const { rows, nextPageToken } = jsonRowsOf(method.output, response);
    yield { rows, nextPageToken };
  }
  if (!signal.aborted) throw new LiveError("unavailable", "the stream ended");
}

/** The Watch method beside the saved query's unary one (`grpc_watch_method`, else `Get<X>` → `Watch<X>`). */
function watchMethodOf(endpoint: ListedEndpoint) {
  const [serviceName, unaryName = ""] = endpoint.grpc_method.split("/");
  const name = endpoint.grpc_watch_method?.split("/")[1] ?? unaryName.replace(/^Get/, "Watch");
  const method = savedQueryServices.find((s) => s.typeName === serviceName)?.methods.find((m) => m.name === name);
  if (method?.methodKind !== "server_streaming") return undefined;
  return method as DescMethodServerStreaming<DescMessage, DescMessage>;
}

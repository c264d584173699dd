// One call of a saved query by the transport the user chose: the GET API
// with fetch, or Connect (JSON, binary, GET) and gRPC-Web with
// @connectrpc/connect-web over the service's own descriptors (src/gen/).
// Each ends as one CallResult: rows as the GET API writes them, or the
// error's code, message and field violations, and what the wire said.
import { type DescMessage, type DescMethodUnary, fromJson, type JsonObject, toJson } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { savedQueryServices } from "../src/endpoints/services.js";
import { BadRequestSchema } from "../src/gen/google/rpc/error_details_pb.js";
import type { ListedEndpoint } from "./listing.js";
import type { TransportName } from "./view-address.js";

export type Row = Record<string, unknown>;

export interface CallResult {
  ok: boolean;
  /** `ok`, or the Connect code name (`invalid_argument`). */
  code: string;
  message: string;
  /** HTTP status, where the transport shows it (GET). */
  httpStatus?: number;
  rows: Row[];
  violations: { field: string; description: string }[];
  /** Response headers (and trailers) the page shows: x-cache, age, server-timing, x-rows-read, x-bytes-read, x-request-id. */
  headers: Headers;
  /** Body bytes as received (compressed when they were), when the browser tells. */
  wireBytes?: number | undefined;
  durationMs: number;
  /** The token of the next older page (logs.all), when older rows remain. */
  nextPageToken?: string | undefined;
  /** Whether rows were left out past `max_rows` or the page (docs/endpoints.md, Truncation). */
  truncated?: boolean | undefined;
  /** The warehouse's count of rows before the cut, never fewer than the rows answered. */
  rowsBeforeLimitAtLeast?: number | undefined;
}

/**
 * Calls `endpoint` with `parameters` (empty ones left out) by `transport`,
 * with `key`, on the service at `base` (default: the page's own).
 */
export async function callEndpoint(
  endpoint: ListedEndpoint,
  parameters: Record<string, string>,
  transport: TransportName,
  key: string,
  base = new URL(".", document.baseURI).href,
): Promise<CallResult> {
  const started = performance.now();
  const given = Object.fromEntries(Object.entries(parameters).filter(([, value]) => value !== ""));
  // The call's own timing entry is then the last one (and the browser's buffer of them never fills).
  performance.clearResourceTimings();
  const result =
    transport === "get"
      ? await callGet(base, endpoint, given, key)
      : await callRpc(base, endpoint, given, transport, key);
  const durationMs = performance.now() - started;
  // A timing entry is added once the body is read, which may be a task after the call's promise settles.
  await new Promise((resolve) => setTimeout(resolve, 0));
  return { ...result, durationMs, wireBytes: lastWireBytes() };
}

/** The GET API's path and query string for a call. */
export function getPath(endpoint: ListedEndpoint, parameters: Record<string, string>): string {
  const query = new URLSearchParams(parameters).toString();
  return `api/endpoints/${encodeURIComponent(endpoint.name)}${query === "" ? "" : `?${query}`}`;
}

async function callGet(base: string, endpoint: ListedEndpoint, parameters: Record<string, string>, key: string) {
  const url = new URL(getPath(endpoint, parameters), base).href;
  const response = await fetch(url, { headers: { "x-api-key": key, accept: "application/json" }, cache: "no-store" });
  const body = (await response.json().catch(() => ({}))) as {
    result?: Row[];
    next_page_token?: string;
    truncated?: boolean;
    rows_before_limit_at_least?: number;
    error?: { code: string; message: string; details?: { field: string; description: string }[] };
  };
  const wire = { httpStatus: response.status, headers: response.headers };
  if (response.ok && body.result !== undefined) {
    const { next_page_token: nextPageToken, truncated, rows_before_limit_at_least: rowsBeforeLimitAtLeast } = body;
    const cut = { nextPageToken, truncated, rowsBeforeLimitAtLeast };
    return { ...wire, ok: true, code: "ok", message: "", rows: body.result, violations: [], ...cut };
  }
  const error = body.error ?? { code: "unknown", message: `HTTP ${response.status}` };
  return { ...wire, ok: false, code: error.code, message: error.message, rows: [], violations: error.details ?? [] };
}

async function callRpc(
  base: string,
  endpoint: ListedEndpoint,
  parameters: Record<string, string>,
  name: TransportName,
  key: string,
) {
  const headers = new Headers();
  const found = methodOf(endpoint.grpc_method);
  if (found === undefined) {
    const message = `${endpoint.grpc_method} is not among this page's descriptors: call it by HTTP GET`;
    return { ok: false, code: "unimplemented", message, rows: [], violations: [], headers };
  }
  const { service, method } = found;
  const client = createClient(service, transportOf(name, base.replace(/\/$/, ""))) as unknown as Record<
    string,
    (request: unknown, options: object) => Promise<unknown>
  >;
  const keep = (received: Headers) => {
    for (const [header, value] of received) headers.set(header, value);
  };
  try {
    const request = fromJson(method.input, parameters as JsonObject, { ignoreUnknownFields: false });
    const response = await client[method.localName]!(request, {
      headers: { "x-api-key": key },
      onHeader: keep,
      onTrailer: keep,
    });
    const { rows, ...cut } = jsonRowsOf(method.output, response);
    return { ok: true, code: "ok", message: "", rows, violations: [], headers, ...cut };
  } catch (thrown) {
    const error = ConnectError.from(thrown);
    keep(error.metadata);
    const violations = error
      .findDetails(BadRequestSchema)
      .flatMap((d) => d.fieldViolations.map(({ field, description }) => ({ field, description })));
    const code = codeName(error.code);
    return { ok: false, code, message: error.rawMessage, rows: [], violations, headers };
  }
}

/** What a response message says about its cut: rows left out, and the rows before the cut at least. */
export interface Cut {
  truncated?: boolean;
  rowsBeforeLimitAtLeast?: number;
}

/** A response message's rows as the GET API writes them, its cut, and its next page's token when it has one. */
export function jsonRowsOf(output: DescMessage, response: unknown): { rows: Row[]; nextPageToken?: string } & Cut {
  const json = toJson(output, response as never, { useProtoFieldName: true, alwaysEmitImplicit: true }) as {
    result?: Row[];
    next_page_token?: string;
    truncated?: boolean;
    /** A uint64, which proto JSON writes as a string. */
    rows_before_limit_at_least?: string | number;
  };
  const rows = (json.result ?? []).map((row) => numbersOf(row, output));
  const cut: Cut = {};
  if (json.truncated !== undefined) cut.truncated = json.truncated;
  if (json.rows_before_limit_at_least !== undefined)
    cut.rowsBeforeLimitAtLeast = Number(json.rows_before_limit_at_least);
  return json.next_page_token ? { rows, nextPageToken: json.next_page_token, ...cut } : { rows, ...cut };
}

export function transportOf(name: TransportName, baseUrl: string): Transport {
  if (name === "grpc-web") return createGrpcWebTransport({ baseUrl, useBinaryFormat: true });
  return createConnectTransport({
    baseUrl,
    useBinaryFormat: name === "connect-binary",
    // The saved queries have no side effects, so Connect may send them as GET.
    useHttpGet: name === "connect-get",
  });
}

/** The service and unary method of `grpcMethod` (`logs.v1.LogsService/GetAllLogs`), from the built-in descriptors. */
export function methodOf(grpcMethod: string) {
  const [serviceName, methodName] = grpcMethod.split("/");
  const service = savedQueryServices.find((s) => s.typeName === serviceName);
  const method = service?.methods.find((m) => m.name === methodName);
  if (service === undefined || method === undefined || method.methodKind !== "unary") return undefined;
  return { service, method: method as DescMethodUnary<DescMessage, DescMessage> };
}

/** 64-bit integers as numbers, as the GET API writes them (proto JSON writes them as strings). */
function numbersOf(row: Row, output: DescMessage): Row {
  const rowMessage = output.fields.find((f) => f.name === "result")?.message;
  for (const field of rowMessage?.fields ?? []) {
    const value = row[field.name];
    if (field.fieldKind === "scalar" && typeof value === "string" && /^-?\d+$/.test(value))
      row[field.name] = Number(value);
  }
  return row;
}

/** `invalid_argument` for Code.InvalidArgument: the names the GET API and Connect use. */
export function codeName(code: Code): string {
  return (Code[code] ?? "unknown").replace(/[A-Z]/g, (c, at: number) => (at === 0 ? "" : "_") + c.toLowerCase());
}

/** The body bytes of the latest request, as the browser received them (compressed when they were). */
function lastWireBytes(): number | undefined {
  const entries = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
  return entries.at(-1)?.encodedBodySize;
}

// A real OTLP/HTTP trace receiver for tests: a node:http server taking what
// the OpenTelemetry SDK POSTs to /v1/traces, as http/json or http/protobuf,
// decoded into plain spans. The protobuf reader walks the few messages of
// ExportTraceServiceRequest with protobuf-es's wire reader (field numbers of
// opentelemetry/proto/trace/v1/trace.proto and common/v1/common.proto).
import { createServer, type Server } from "node:http";
import { gunzipSync } from "node:zlib";
import { BinaryReader } from "@bufbuild/protobuf/wire";

export type AttributeValue = string | number | boolean;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  /** Start and end, in nanoseconds since the epoch. */
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, AttributeValue>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  links: { traceId: string; spanId: string }[];
  /** The attributes of the resource that sent it (service.name...). */
  resource: Record<string, AttributeValue>;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** The content types of the exports received, in order. */
  contentTypes: string[];
  /** Resolves with the spans once `ready(spans)` holds; rejects after `timeoutMs` with what arrived. */
  waitFor(ready: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      let body = Buffer.concat(chunks);
      if (request.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      const type = request.headers["content-type"] ?? "";
      contentTypes.push(type);
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      if (type.startsWith("application/json")) {
        spans.push(...fromJson(JSON.parse(body.toString("utf8")) as JsonRequest));
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      } else {
        spans.push(...fromProtobuf(new Uint8Array(body)));
        response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    async waitFor(ready, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!ready(spans)) {
        if (Date.now() > deadline)
          throw new Error(`spans not received in time; got ${JSON.stringify(spans.map((s) => s.name))}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return spans;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface JsonValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
}
interface JsonKeyValue {
  key: string;
  value: JsonValue;
}
interface JsonRequest {
  resourceSpans?: {
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string | number;
        endTimeUnixNano: string | number;
        attributes?: JsonKeyValue[];
        status?: { code?: number; message?: string };
        links?: { traceId: string; spanId: string }[];
      }[];
    }[];
  }[];
}

function fromJson(request: JsonRequest): ReceivedSpan[] {
  const attributes = (list: JsonKeyValue[] | undefined) =>
    Object.fromEntries(
      (list ?? []).map(({ key, value }) => [
        key,
        value.stringValue ??
          value.boolValue ??
          (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue!),
      ]),
    );
  // OTLP/JSON carries ids as hex (not base64, unlike protobuf's JSON mapping).
  return (request.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? "",
        name: s.name,
        kind: s.kind,
        startNs: BigInt(s.startTimeUnixNano),
        endNs: BigInt(s.endTimeUnixNano),
        attributes: attributes(s.attributes),
        status: { code: s.status?.code ?? 0, message: s.status?.message ?? "" },
        links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
        resource: attributes(rs.resource?.attributes),
      })),
    ),
  );
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** Calls `field` for each field of the message in `bytes`; fields it does not read are skipped. */
function fields(bytes: Uint8Array, field: (no: number, reader: BinaryReader) => boolean) {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    if (!field(no, reader)) reader.skip(wireType, no);
  }
}

function keyValue(bytes: Uint8Array): [string, AttributeValue] {
  let key = "";
  let value: AttributeValue = "";
  fields(bytes, (no, r) => {
    if (no === 1) key = r.string();
    else if (no === 2)
      fields(r.bytes(), (vno, v) => {
        if (vno === 1) value = v.string();
        else if (vno === 2) value = v.bool();
        else if (vno === 3) value = Number(v.int64());
        else if (vno === 4) value = v.double();
        else return false;
        return true;
      });
    else return false;
    return true;
  });
  return [key, value];
}

function fromProtobuf(bytes: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  fields(bytes, (no, r) => {
    if (no !== 1) return false; // resource_spans
    const resource: Record<string, AttributeValue> = {};
    const found: ReceivedSpan[] = [];
    fields(r.bytes(), (rno, rr) => {
      if (rno === 1) {
        fields(rr.bytes(), (ano, ar) => {
          if (ano !== 1) return false;
          const [key, value] = keyValue(ar.bytes());
          resource[key] = value;
          return true;
        });
      } else if (rno === 2) {
        fields(rr.bytes(), (sno, sr) => {
          if (sno !== 2) return false; // spans
          found.push(span(sr.bytes(), resource));
          return true;
        });
      } else return false;
      return true;
    });
    spans.push(...found);
    return true;
  });
  return spans;
}

function span(bytes: Uint8Array, resource: Record<string, AttributeValue>): ReceivedSpan {
  const s: ReceivedSpan = {
    traceId: "",
    spanId: "",
    parentSpanId: "",
    name: "",
    kind: 0,
    startNs: 0n,
    endNs: 0n,
    attributes: {},
    status: { code: 0, message: "" },
    links: [],
    resource,
  };
  fields(bytes, (no, r) => {
    if (no === 1) s.traceId = hex(r.bytes());
    else if (no === 2) s.spanId = hex(r.bytes());
    else if (no === 4) s.parentSpanId = hex(r.bytes());
    else if (no === 5) s.name = r.string();
    else if (no === 6) s.kind = r.int32();
    else if (no === 7) s.startNs = BigInt(r.fixed64());
    else if (no === 8) s.endNs = BigInt(r.fixed64());
    else if (no === 9) {
      const [key, value] = keyValue(r.bytes());
      s.attributes[key] = value;
    } else if (no === 13) {
      const link = { traceId: "", spanId: "" };
      fields(r.bytes(), (lno, lr) => {
        if (lno === 1) link.traceId = hex(lr.bytes());
        else if (lno === 2) link.spanId = hex(lr.bytes());
        else return false;
        return true;
      });
      s.links.push(link);
    } else if (no === 15) {
      fields(r.bytes(), (tno, tr) => {
        if (tno === 2) s.status.message = tr.string();
        else if (tno === 3) s.status.code = tr.int32();
        else return false;
        return true;
      });
    } else return false;
    return true;
  });
  return s;
}

// Readers of watch streams for tests: @grpc/grpc-js and the buf-generated
// Connect client collect each stream's messages and its end, and rows are
// posted to the import route (which refreshes the cached results reading
// the table at once).
import {
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethod,
  type DescService,
  type Message,
} from "@bufbuild/protobuf";
import { type Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import * as grpc from "@grpc/grpc-js";

/** A stream being read: its messages so far, and its end (code 0 when it ended well). */
export interface WatchReader {
  messages: Message[];
  /** Resolves once `count` messages have come; rejects when the stream ends before. */
  until(count: number, timeoutMs?: number): Promise<Message[]>;
  ended: Promise<{ code: Code | 0; message: string }>;
  cancel(): void;
}

function reader(cancel: () => void) {
  const messages: Message[] = [];
  const waiters = new Set<() => void>();
  let end: { code: Code | 0; message: string } | undefined;
  let resolveEnded!: (value: { code: Code | 0; message: string }) => void;
  const ended = new Promise<{ code: Code | 0; message: string }>((resolve) => {
    resolveEnded = resolve;
  });
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  const watch: WatchReader = {
    messages,
    until(count, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => done(new Error(`${messages.length} of ${count} messages in ${timeoutMs} ms`)),
          timeoutMs,
        );
        const check = () => {
          if (messages.length >= count) done();
          else if (end !== undefined)
            done(new Error(`the stream ended (${end.code}: ${end.message}) after ${messages.length}`));
        };
        const done = (error?: Error) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (error === undefined) resolve(messages.slice(0, count));
          else reject(error);
        };
        waiters.add(check);
        check();
      });
    },
    ended,
    cancel,
  };
  return {
    watch,
    push(message: Message) {
      messages.push(message);
      wake();
    },
    finish(code: Code | 0, message: string) {
      if (end !== undefined) return;
      end = { code, message };
      resolveEnded(end);
      wake();
    },
  };
}

/** Opens `method` (server streaming) with grpc-js on `client`. */
export function grpcJsWatch(
  client: grpc.Client,
  service: DescService,
  method: DescMethod,
  request: Message,
  options: { headers?: Record<string, string>; timeoutMs?: number } = {},
): WatchReader {
  const metadata = new grpc.Metadata();
  for (const [k, v] of Object.entries(options.headers ?? {})) metadata.set(k, v);
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  const call = client.makeServerStreamRequest(
    `/${service.typeName}/${method.name}`,
    (m: Message) => Buffer.from(toBinary(method.input as DescMessage, m)),
    (b: Buffer) => fromBinary(method.output as DescMessage, b),
    request,
    metadata,
    { deadline },
  );
  const { watch, push, finish } = reader(() => call.cancel());
  call.on("data", (message: Message) => push(message));
  call.on("error", (error: grpc.ServiceError) =>
    finish(error.code as number as Code, decodeURIComponent(error.details)),
  );
  call.on("status", (status: grpc.StatusObject) => finish(status.code as number as Code | 0, status.details));
  return watch;
}

/** Opens `method` (server streaming) with the Connect client over `transport`. */
export function connectWatch(
  transport: Transport,
  service: DescService,
  method: DescMethod,
  request: Message,
  options: { headers?: Record<string, string>; timeoutMs?: number } = {},
): WatchReader {
  const abort = new AbortController();
  const { watch, push, finish } = reader(() => abort.abort());
  const client = createClient(service, transport) as unknown as Record<
    string,
    (req: Message, opts: object) => AsyncIterable<Message>
  >;
  void (async () => {
    try {
      for await (const message of client[method.localName]!(request, { ...options, signal: abort.signal }))
        push(message);
      finish(0, "");
    } catch (error) {
      const e = ConnectError.from(error);
      finish(e.code, e.rawMessage);
    }
  })();
  return watch;
}

/** Posts NDJSON `lines` to POST /api/import/<table>; resolves with the rows inserted. */
export async function importRows(url: string, key: string, table: string, lines: object[]): Promise<number> {
  const response = await fetch(`${url}/api/import/${table}`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/x-ndjson" },
    body: lines.map((line) => JSON.stringify(line)).join("\n"),
  });
  const body = (await response.json()) as { inserted?: number };
  if (response.status !== 200) throw new Error(`import answered ${response.status}: ${JSON.stringify(body)}`);
  return body.inserted!;
}

/** An edge_logs row of project `rpc` at `at` (ms), with id number `n`. */
export function edgeLogRow(n: number, at: number, path = "/rest/v1/watched"): object {
  return {
    id: `00000000-0000-4000-9000-${String(n).padStart(12, "0")}`,
    timestamp: new Date(at).toISOString(),
    event_message: `GET | 200 | ${path}`,
    project: "rpc",
    metadata: [
      { request: [{ method: "GET", path, url: `https://rpc.supabase.co${path}` }], response: [{ status_code: 200 }] },
    ],
  };
}

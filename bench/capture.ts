// The service's answers, captured from the wire as a client receives them
// (status, headers, body and trailers), for the bare servers to replay
// exactly (bench/bare-servers.ts), and checked to be what the bench means to
// measure: a 200, a cache hit, and for gRPC and gRPC-Web grpc-status 0.
import { readFileSync, writeFileSync } from "node:fs";
import { request as http1Request } from "node:http";
import { connect as http2Connect } from "node:http2";

/** One call as the bench makes it. */
export interface CallSpec {
  http: "1.1" | "2";
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** The service's answer to one call, as it came over the wire. */
export interface CapturedAnswer {
  http: "1.1" | "2";
  method: string;
  path: string;
  /** The request's content type, which tells the RPC protocols apart on one path; "" for a GET. */
  contentType: string;
  status: number;
  /** Response headers in order, less those a server makes per connection or per second (date, connection, keep-alive). */
  headers: [string, string][];
  body: Buffer;
  /** HTTP/2 trailers (gRPC), in order. */
  trailers?: [string, string][];
}

const perConnection = new Set(["date", "connection", "keep-alive", ":status"]);
const pairs = (headers: Record<string, unknown>): [string, string][] =>
  Object.entries(headers)
    .filter(([name]) => !perConnection.has(name.toLowerCase()))
    .map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : String(value)]);

/** Makes `call` against `baseUrl` on a connection of its own and captures the answer. */
export function captureAnswer(baseUrl: string, call: CallSpec): Promise<CapturedAnswer> {
  const contentType = call.headers["content-type"] ?? "";
  const base = { http: call.http, method: call.method, path: call.path, contentType };
  return call.http === "1.1" ? captureHttp1(baseUrl, call, base) : captureHttp2(baseUrl, call, base);
}

/** Makes `call` twice against `baseUrl`: the miss that fills the cache, then the hit, which it captures. */
export async function captureHit(baseUrl: string, call: CallSpec): Promise<CapturedAnswer> {
  await captureAnswer(baseUrl, call);
  return captureAnswer(baseUrl, call);
}

type Base = Pick<CapturedAnswer, "http" | "method" | "path" | "contentType">;

function captureHttp1(baseUrl: string, call: CallSpec, base: Base): Promise<CapturedAnswer> {
  return new Promise((resolve, reject) => {
    const headers = { ...call.headers, ...(call.body ? { "content-length": String(call.body.length) } : {}) };
    const req = http1Request(`${baseUrl}${call.path}`, { method: call.method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const raw: Record<string, string> = {};
        for (let i = 0; i < response.rawHeaders.length; i += 2)
          raw[response.rawHeaders[i]!] = response.rawHeaders[i + 1]!;
        resolve({ ...base, status: response.statusCode ?? 0, headers: pairs(raw), body: Buffer.concat(chunks) });
      });
    });
    req.on("error", reject);
    req.end(call.body);
  });
}

function captureHttp2(baseUrl: string, call: CallSpec, base: Base): Promise<CapturedAnswer> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(baseUrl);
    session.on("error", reject);
    const stream = session.request(
      { ":method": call.method, ":path": call.path, ...call.headers },
      { endStream: call.body === undefined },
    );
    const chunks: Buffer[] = [];
    let status = 0;
    let headers: [string, string][] = [];
    let trailers: [string, string][] | undefined;
    stream.on("response", (received) => {
      status = Number(received[":status"]);
      headers = pairs(received);
    });
    stream.on("trailers", (received) => (trailers = pairs(received)));
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", reject);
    stream.on("end", () => {
      session.close();
      resolve({ ...base, status, headers, body: Buffer.concat(chunks), ...(trailers ? { trailers } : {}) });
    });
    if (call.body !== undefined) stream.end(call.body);
  });
}

/** The grpc-status of a gRPC-Web body's trailer frame (flag 0x80), or undefined when it has none. */
function grpcWebStatus(body: Buffer): string | undefined {
  for (let at = 0; at + 5 <= body.length; ) {
    const length = body.readUInt32BE(at + 1);
    if ((body[at]! & 0x80) !== 0) {
      return /^grpc-status:\s*(\d+)/im.exec(body.subarray(at + 5, at + 5 + length).toString())?.[1];
    }
    at += 5 + length;
  }
  return undefined;
}

/** What makes `answer` other than a successful cache hit; empty when it is one. */
export function cacheHitProblems(answer: CapturedAnswer): string[] {
  const problems: string[] = [];
  const header = (name: string) => answer.headers.find(([n]) => n.toLowerCase() === name)?.[1];
  if (answer.status !== 200) problems.push(`status ${answer.status}`);
  if (header("x-cache") !== "HIT") problems.push(`x-cache ${header("x-cache")}, not HIT`);
  if (answer.contentType === "application/grpc") {
    const status = answer.trailers?.find(([n]) => n === "grpc-status")?.[1] ?? header("grpc-status");
    if (status !== "0") problems.push(`grpc-status ${status}`);
  }
  if (answer.contentType.startsWith("application/grpc-web")) {
    const status = grpcWebStatus(answer.body);
    if (status !== "0") problems.push(`grpc-web trailer grpc-status ${status}`);
  }
  return problems;
}

/** Writes answers to a file a bare server reads (bodies in base64). */
export function writeCaptureFile(path: string, answers: CapturedAnswer[]): void {
  writeFileSync(path, JSON.stringify(answers.map((a) => ({ ...a, body: a.body.toString("base64") }))));
}

/** Reads a file `writeCaptureFile` wrote. */
export function readCaptureFile(path: string): CapturedAnswer[] {
  const answers = JSON.parse(readFileSync(path, "utf8")) as (Omit<CapturedAnswer, "body"> & { body: string })[];
  return answers.map((a) => ({ ...a, body: Buffer.from(a.body, "base64") }));
}

// One request sent as raw as Node's clients allow, over HTTP/1.1 (node:http)
// or HTTP/2 prior knowledge (node:http2), and its answer as a client sees it:
// status, header and trailer fields in the order they came, body bytes.
import { request as http1Request } from "node:http";
import { connect as http2Connect } from "node:http2";

export interface RawRequest {
  method: "GET" | "HEAD" | "POST";
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface RawAnswer {
  status: number;
  /** Name (lowercase) and value, in the order received; `date` has its value replaced by "(date)". */
  headers: [string, string][];
  trailers: [string, string][];
  body: Buffer;
}

const dated = ([name, value]: [string, string]): [string, string] => [name, name === "date" ? "(date)" : value];

function pairs(raw: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push(dated([raw[i]!.toLowerCase(), raw[i + 1]!]));
  return out;
}

function fields(received: Record<string, string | string[] | number | undefined>): [string, string][] {
  return Object.entries(received).map(([name, value]) =>
    dated([name, Array.isArray(value) ? value.join(", ") : String(value)]),
  );
}

/** Sends `request` to `baseUrl` over HTTP/1.1 on a connection of its own. */
export function exchangeHttp1(baseUrl: string, request: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers = { ...request.headers, ...(request.body ? { "content-length": String(request.body.length) } : {}) };
    const sent = http1Request(`${baseUrl}${request.path}`, { method: request.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: pairs(res.rawHeaders),
          trailers: pairs(res.rawTrailers),
          body: Buffer.concat(chunks),
        }),
      );
      res.on("error", reject);
    });
    sent.on("error", reject);
    sent.end(request.body);
  });
}

/** Sends `request` to `baseUrl` over HTTP/2 prior knowledge on a session of its own. */
export function exchangeHttp2(baseUrl: string, request: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(baseUrl);
    session.on("error", reject);
    const stream = session.request({ ":method": request.method, ":path": request.path, ...request.headers });
    let status = 0;
    let headers: [string, string][] = [];
    let trailers: [string, string][] = [];
    const chunks: Buffer[] = [];
    // Node builds the header object in the order the fields came in.
    stream.on("response", (received) => {
      status = Number(received[":status"]);
      headers = fields(received).filter(([name]) => !name.startsWith(":"));
    });
    stream.on("trailers", (received) => void (trailers = fields(received)));
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      session.close();
      resolve({ status, headers, trailers, body: Buffer.concat(chunks) });
    });
    stream.on("error", reject);
    stream.end(request.body);
  });
}

/** A gRPC and gRPC-Web request body: one uncompressed envelope around `message`. */
export function envelope(message: Uint8Array): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

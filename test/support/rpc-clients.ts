// Real clients of the service: the buf-generated Connect client over the
// Connect, gRPC and gRPC-Web transports, and @grpc/grpc-js with protobuf-es
// serialisation. Each call is reduced to { message } or { code, message, fields }.
import {
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethod,
  type DescService,
  type Message,
} from "@bufbuild/protobuf";
import { type Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { fieldViolationsOf } from "../../src/errors/index.js";

export type CallOutcome = { ok: true; message: Message } | { ok: false; code: Code; message: string; fields: string[] };

export interface CallOptions {
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface RpcClient {
  name: string;
  call(service: DescService, method: DescMethod, request: Message, options?: CallOptions): Promise<CallOutcome>;
  close(): void;
}

function connectClient(name: string, transport: Transport): RpcClient {
  return {
    name,
    async call(service, method, request, options = {}) {
      const client = createClient(service, transport) as unknown as Record<
        string,
        (req: Message, opts: object) => Promise<Message>
      >;
      try {
        const message = await client[method.localName]!(request, {
          headers: options.headers,
          timeoutMs: options.timeoutMs,
        });
        return { ok: true, message };
      } catch (error) {
        const e = ConnectError.from(error);
        return { ok: false, code: e.code, message: e.rawMessage, fields: fieldViolationsOf(e).map((v) => v.field) };
      }
    },
    close() {},
  };
}

function grpcJsClient(address: string): RpcClient {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  return {
    name: "@grpc/grpc-js",
    call(service, method, request, options = {}) {
      const metadata = new grpc.Metadata();
      for (const [k, v] of Object.entries(options.headers ?? {})) metadata.set(k, v);
      const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
      return new Promise((resolve) => {
        client.makeUnaryRequest(
          `/${service.typeName}/${method.name}`,
          (m: Message) => Buffer.from(toBinary(method.input as DescMessage, m)),
          (b: Buffer) => fromBinary(method.output as DescMessage, b),
          request,
          metadata,
          { deadline },
          (error, message) => {
            if (error) {
              // grpc-js status codes share their numbers with Connect's Code.
              // connect-node percent-encodes grpc-message with encodeURIComponent, grpc-js
              // decodes it with decodeURI, so ";" and "," arrive as %3B and %2C.
              const message = decodeURIComponent(error.details);
              resolve({ ok: false, code: error.code as number as Code, message, fields: [] });
            } else {
              resolve({ ok: true, message: message! });
            }
          },
        );
      });
    },
    close: () => client.close(),
  };
}

/** One of each kind of client, all pointed at `url` / `address`. */
export function allClients(url: string, address: string): RpcClient[] {
  return [
    connectClient("connect", createConnectTransport({ baseUrl: url, httpVersion: "1.1" })),
    connectClient("connect over h2c", createConnectTransport({ baseUrl: url, httpVersion: "2" })),
    connectClient("grpc", createGrpcTransport({ baseUrl: url })),
    connectClient("grpc-web", createGrpcWebTransport({ baseUrl: url, httpVersion: "1.1" })),
    grpcJsClient(address),
  ];
}

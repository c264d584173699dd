// The bench's bare servers (bench/bare-servers.ts) answer each call with the
// bytes captured from another server for it: the same status, headers, body
// and trailers, over HTTP/1.1 and h2c, as a client sees them on the wire.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer as createHttp1Server, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server } from "node:http2";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CallSpec, type CapturedAnswer, captureAnswer, writeCaptureFile } from "../../../bench/capture.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const root = join(import.meta.dirname, "../../..");
const message = Buffer.from([0, 0, 0, 0, 3, 1, 2, 3]);
const trailerText = Buffer.from("grpc-status: 0\r\n");
const trailerFrame = Buffer.concat([Buffer.from([0x80, 0, 0, 0, trailerText.length]), trailerText]);

const calls: CallSpec[] = [
  { http: "1.1", method: "GET", path: "/api/x?project=p", headers: {} },
  { http: "2", method: "GET", path: "/api/x?project=p", headers: {} },
  {
    http: "1.1",
    method: "POST",
    path: "/svc/Method",
    headers: { "content-type": "application/grpc-web+proto" },
    body: message,
  },
  {
    http: "2",
    method: "POST",
    path: "/svc/Method",
    headers: { "content-type": "application/grpc", te: "trailers" },
    body: message,
  },
];

let directory: string;
let origin: { http1: Server; http2: Http2Server; urls: Record<"1.1" | "2", string> };
let bare: ChildProcess;
let bareUrls: Record<"1.1" | "2", string>;
const fromOrigin: CapturedAnswer[] = [];

const listen = (server: Server | Http2Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)),
  );

beforeAll(async () => {
  directory = makeTemporaryDirectory("sqe-bare-");
  // The origin: a GET with a fixed length, a gRPC-Web answer in two chunks, gRPC with trailers.
  const http1 = createHttp1Server((request, response) => {
    request.resume();
    request.on("end", () => {
      if (request.method === "GET") {
        response.writeHead(200, {
          "content-type": "application/json",
          "content-length": "7",
          "x-cache": "HIT",
          age: "3",
        });
        response.end('{"a":1}');
      } else {
        response.writeHead(200, { "content-type": "application/grpc-web+proto", "x-cache": "HIT" });
        response.write(message);
        response.end(trailerFrame);
      }
    });
  });
  const http2 = createHttp2Server();
  http2.on("stream", (stream, headers) => {
    stream.resume();
    stream.on("end", () => {
      if (headers[":method"] === "GET") {
        stream.respond({ ":status": 200, "content-type": "application/json", "x-cache": "HIT" });
        stream.end('{"a":2}');
        return;
      }
      stream.respond(
        { ":status": 200, "content-type": "application/grpc+proto", "x-cache": "HIT" },
        { waitForTrailers: true },
      );
      stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0", "grpc-message": "" }));
      stream.end(message);
    });
  });
  origin = { http1, http2, urls: { "1.1": await listen(http1), "2": await listen(http2) } };
  for (const call of calls) fromOrigin.push(await captureAnswer(origin.urls[call.http], call));
  const file = join(directory, "answers.json");
  writeCaptureFile(file, fromOrigin);
  bare = spawn(process.execPath, ["--import", "tsx", "bench/bare-servers.ts", file], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ports = await new Promise<RegExpExecArray>((resolve, reject) => {
    let out = "";
    bare.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /ports (\d+) (\d+)/.exec(out);
      if (match) resolve(match);
    });
    bare.once("exit", (code) => reject(new Error(`bare servers exited ${code}`)));
  });
  bareUrls = { "1.1": `http://127.0.0.1:${ports[1]}`, "2": `http://127.0.0.1:${ports[2]}` };
});

afterAll(async () => {
  const exited = new Promise((resolve) => bare?.once("exit", resolve));
  bare?.kill("SIGTERM");
  await exited;
  origin?.http1.close();
  origin?.http2.close();
  removeTemporaryDirectory(directory);
});

describe("the bare servers", () => {
  it("captured what the origin sent", () => {
    expect(fromOrigin.map((a) => [a.status, a.body.toString("hex")])).toEqual([
      [200, Buffer.from('{"a":1}').toString("hex")],
      [200, Buffer.from('{"a":2}').toString("hex")],
      [200, Buffer.concat([message, trailerFrame]).toString("hex")],
      [200, message.toString("hex")],
    ]);
    expect(fromOrigin[2]!.headers).toContainEqual(["Transfer-Encoding", "chunked"]);
    expect(fromOrigin[3]!.trailers).toEqual([
      ["grpc-status", "0"],
      ["grpc-message", ""],
    ]);
  });

  it.each(calls.map((call, i) => [`${call.method} over HTTP/${call.http} ${call.headers["content-type"] ?? ""}`, i]))(
    "answer %s with the origin's status, headers, body and trailers",
    async (_name, i) => {
      const call = calls[i as number]!;
      expect(await captureAnswer(bareUrls[call.http], call)).toEqual(fromOrigin[i as number]);
    },
  );

  it("answer a call they were not given 404", async () => {
    const answer = await captureAnswer(bareUrls["2"], { http: "2", method: "GET", path: "/other", headers: {} });
    expect(answer.status).toBe(404);
  });
});

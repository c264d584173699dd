// The platform's own servers as the bench's baselines: a bare node:http
// server and a bare node:http2 server (h2c, prior knowledge), in one
// process, each reading a request to its end and answering it with the bytes
// the service was captured sending for the same call (status, headers, body
// and, for gRPC, trailers; bench/capture.ts), 404 for a call it does not know.
// Run as a child of the bench: `tsx bench/bare-servers.ts <capture file>`;
// prints "ports <http/1.1 port> <h2c port>".
import { createServer as createHttp1Server, type OutgoingHttpHeaders } from "node:http";
import { createServer as createHttp2Server } from "node:http2";
import { type CapturedAnswer, readCaptureFile } from "./capture.js";

const keyOf = (method: string | undefined, path: string | undefined, contentType: string | undefined) =>
  `${method} ${path} ${contentType ?? ""}`;
const answers = { "1.1": new Map<string, CapturedAnswer>(), "2": new Map<string, CapturedAnswer>() };
for (const answer of readCaptureFile(process.argv[2]!))
  answers[answer.http].set(keyOf(answer.method, answer.path, answer.contentType), answer);

// Header objects made once, as a server answering from a cache would.
const http1Headers = new Map<CapturedAnswer, OutgoingHttpHeaders>(
  [...answers["1.1"].values()].map((a) => [a, Object.fromEntries(a.headers)]),
);
const http2Headers = new Map<CapturedAnswer, OutgoingHttpHeaders>(
  [...answers["2"].values()].map((a) => [a, { ":status": a.status, ...Object.fromEntries(a.headers) }]),
);
const http2Trailers = new Map<CapturedAnswer, OutgoingHttpHeaders>(
  [...answers["2"].values()].filter((a) => a.trailers).map((a) => [a, Object.fromEntries(a.trailers!)]),
);

const http1 = createHttp1Server((request, response) => {
  const answer = answers["1.1"].get(keyOf(request.method, request.url, request.headers["content-type"]));
  request.on("end", () => {
    if (answer === undefined) response.writeHead(404).end();
    else response.writeHead(answer.status, http1Headers.get(answer)).end(answer.body);
  });
  request.resume();
});

// Stopped with SIGTERM, it exits as a process does, so that a profiled run (bench/profile.ts) writes its profile.
process.once("SIGTERM", () => process.exit(0));

// The service's keep-alive, so that the Keep-Alive header's bytes are the same too.
http1.keepAliveTimeout = 60_000;

const http2 = createHttp2Server();
http2.on("stream", (stream, headers) => {
  const answer = answers["2"].get(keyOf(headers[":method"], headers[":path"], headers["content-type"]));
  // A load tester's streams still open when it stops are reset: nothing to report.
  stream.on("error", () => {});
  stream.on("end", () => {
    if (stream.destroyed) return;
    if (answer === undefined) {
      stream.respond({ ":status": 404 }, { endStream: true });
      return;
    }
    const trailers = http2Trailers.get(answer);
    stream.respond(http2Headers.get(answer)!, { waitForTrailers: trailers !== undefined });
    if (trailers !== undefined) stream.once("wantTrailers", () => stream.sendTrailers(trailers));
    stream.end(answer.body);
  });
  stream.resume();
});
http2.on("sessionError", () => {});

const listen = (server: typeof http1 | typeof http2) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)),
  );
const [http1Port, http2Port] = [await listen(http1), await listen(http2)];
process.stdout.write(`ports ${http1Port} ${http2Port}\n`);

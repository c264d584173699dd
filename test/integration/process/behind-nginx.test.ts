// The service behind nginx, configured by deploy/nginx.conf (the file
// docs/deployment.md shows): GET, Connect and gRPC-Web through proxy_pass on
// HTTP/1.1, gRPC and reflection through grpc_pass on HTTP/2, the same answers
// as the service gives directly; and with TRUSTED_PROXIES naming nginx, a
// client guessing keys is throttled whatever X-Forwarded-For it sends, while
// another client behind the same proxy is not. The two clients are two
// loopback source addresses, 127.0.0.2 and 127.0.0.3.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { create, type Message } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FunctionsService } from "../../../src/gen/functions/v1/functions_pb.js";
import { LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import { freePort, nginxMissing, startNginx, type NginxProcess } from "../../support/nginx-process.js";
import { startServiceProcess, type ServiceProcess } from "../../support/service-process.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const root = join(import.meta.dirname, "../../..");
const nginxConf = readFileSync(join(root, "deploy/nginx.conf"), "utf8");
const key = "behind-nginx-key-0123456789";
const project = "abzsnkmgosgetnfjhnhz"; // the demo data's first project
const guesser = "127.0.0.2";
const neighbour = "127.0.0.3";
const watcher = "127.0.0.4";
const otherWatcher = "127.0.0.5";

/** `text` with each `from` replaced by `to`, which must occur `times` times: a changed file fails here, not quietly. */
function substitute(text: string, replacements: [from: string, to: string, times: number][]): string {
  let result = text;
  for (const [from, to, times] of replacements) {
    expect({ from, occurrences: result.split(from).length - 1 }).toEqual({ from, occurrences: times });
    result = result.replaceAll(from, to);
  }
  return result;
}

/** A GET from `localAddress`: status and body. */
function get(url: string, localAddress: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { localAddress, headers, agent: false }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** An event stream opened from `localAddress`: its status once its head came, and how to close it. */
function openEventStream(url: string, localAddress: string, headers: Record<string, string>) {
  return new Promise<{ status: number; close(): void }>((resolve, reject) => {
    const req = request(
      url,
      { localAddress, headers: { accept: "text/event-stream", ...headers }, agent: false },
      (res) => resolve({ status: res.statusCode!, close: () => req.destroy() }),
    );
    req.on("error", reject);
    req.end();
  });
}

describe("docs/deployment.md", () => {
  it("shows deploy/nginx.conf as it is", () => {
    expect(readFileSync(join(root, "docs/deployment.md"), "utf8")).toContain(`\`\`\`nginx\n${nginxConf}\`\`\`\n`);
  });
});

describe.skipIf(nginxMissing() !== undefined)(
  `behind nginx${nginxMissing() === undefined ? "" : ` (skipped: ${nginxMissing()})`}`,
  () => {
    let scratch: string;
    let service: ServiceProcess | undefined;
    let nginx: NginxProcess | undefined;
    let direct: string;
    let http: string;
    let grpcUrl: string;
    let grpcPort: number;

    beforeAll(async () => {
      scratch = makeTemporaryDirectory("sqe-nginx-");
      service = startServiceProcess({
        PORT: "0",
        CHDB_PATH: join(scratch, "data"),
        API_KEYS: key,
        TRUSTED_PROXIES: "127.0.0.1",
        // Two failures per client, and none given back within the test.
        AUTH_FAILURE_BURST: "2",
        AUTH_FAILURES_PER_SECOND: "0.001",
        // Two event streams per client address.
        MAX_WATCH_STREAMS_PER_ADDRESS: "2",
      });
      direct = await service.listening();
      const httpPort = await freePort();
      grpcPort = await freePort();
      const site = substitute(nginxConf, [
        // Both upstreams: the HTTP/1.1 pool and the HTTP/2 one.
        ["server service:8080;", `server ${new URL(direct).host};`, 2],
        ["listen 8080;", `listen 127.0.0.1:${httpPort};`, 1],
        ["listen 50051 http2;", `listen 127.0.0.1:${grpcPort} http2;`, 1],
      ]);
      nginx = await startNginx(scratch, site, [httpPort, grpcPort]);
      http = `http://127.0.0.1:${httpPort}`;
      grpcUrl = `http://127.0.0.1:${grpcPort}`;
    }, 120_000);
    afterAll(async () => {
      await nginx?.stop();
      await service?.stop();
      removeTemporaryDirectory(scratch);
    });

    const logsRequest = create(LogsService.method.getAllLogs.input, { project });
    const statsRequest = create(FunctionsService.method.getInvocationStats.input, { project, interval: "1day" });
    const transports: [string, () => Transport, () => Transport][] = [
      [
        "Connect (proxy_pass)",
        () => createConnectTransport({ baseUrl: http, httpVersion: "1.1" }),
        () => createConnectTransport({ baseUrl: direct, httpVersion: "1.1" }),
      ],
      [
        "gRPC-Web (proxy_pass)",
        () => createGrpcWebTransport({ baseUrl: http, httpVersion: "1.1" }),
        () => createGrpcWebTransport({ baseUrl: direct, httpVersion: "1.1" }),
      ],
      [
        "gRPC (grpc_pass)",
        () => createGrpcTransport({ baseUrl: grpcUrl }),
        () => createGrpcTransport({ baseUrl: direct }),
      ],
    ];

    it("answers GET through proxy_pass as the service does directly", async () => {
      const path = `/api/endpoints/logs.all?project=${project}`;
      const proxied = await get(`${http}${path}`, neighbour, { "x-api-key": key });
      const plain = await get(`${direct}${path}`, "127.0.0.1", { "x-api-key": key });
      expect(proxied.status).toBe(200);
      expect((JSON.parse(proxied.body) as { result: unknown[] }).result.length).toBeGreaterThan(0);
      expect(proxied.body).toBe(plain.body);
      expect((await get(`${http}/readyz`, neighbour, {})).status).toBe(200);
      // Metrics stay on the replica.
      expect((await get(`${http}/metrics`, neighbour, {})).status).toBe(404);
    });

    it.each(transports)("answers %s as the service does directly", async (_name, viaProxy, directly) => {
      const options = { headers: { "x-api-key": key } };
      for (const [service, method, input] of [
        [LogsService, "getAllLogs", logsRequest],
        [FunctionsService, "getInvocationStats", statsRequest],
      ] as const) {
        const call = (transport: Transport) =>
          (createClient(service, transport) as unknown as Record<string, (m: Message, o: object) => Promise<Message>>)[
            method
          ]!(input, options);
        const proxied = (await call(viaProxy())) as Message & { result: unknown[] };
        expect(proxied.result.length).toBeGreaterThan(0);
        expect(proxied).toEqual(await call(directly()));
      }
    });

    it("serves gRPC reflection and health through grpc_pass (buf curl)", async () => {
      const buf = join(root, "node_modules/.bin/buf");
      const curl = async (...args: string[]) =>
        (
          await promisify(execFile)(buf, ["curl", "--protocol", "grpc", "--http2-prior-knowledge", ...args], {
            timeout: 60_000,
          })
        ).stdout;
      expect((await curl("--list-methods", grpcUrl)).trim().split("\n")).toEqual(
        expect.arrayContaining([
          "functions.v1.FunctionsService/GetInvocationStats",
          "logs.v1.LogsService/GetAllLogs",
          "usage.v1.UsageService/GetApiCounts",
          "grpc.health.v1.Health/Check",
        ]),
      );
      expect(JSON.parse(await curl("-d", '{"service":""}', `${grpcUrl}/grpc.health.v1.Health/Check`))).toEqual({
        status: "SERVING",
      });
    });

    it("throttles a client guessing keys, whatever X-Forwarded-For it sends, and not its neighbour", async () => {
      const path = `${http}/api/endpoints/logs.all?project=${project}`;
      const guess = (n: number, forwardedFor: string) =>
        get(path, guesser, { "x-api-key": `wrong-key-${n}-0123456789`, "x-forwarded-for": forwardedFor });
      // Blaming the neighbour, then the proxy itself: nginx appends the address it saw, and that one counts.
      expect([(await guess(1, neighbour)).status, (await guess(2, "127.0.0.1")).status]).toEqual([401, 401]);
      expect((await get(path, guesser, { "x-api-key": key, "x-forwarded-for": "198.51.100.9" })).status).toBe(429);
      const grpcFrom = (localAddress: string) =>
        createClient(
          LogsService,
          createGrpcTransport({
            baseUrl: grpcUrl,
            nodeOptions: { createConnection: () => connect({ host: "127.0.0.1", port: grpcPort, localAddress }) },
          }),
        )
          .getAllLogs(logsRequest, { headers: { "x-api-key": key, "x-forwarded-for": neighbour } })
          .then(
            () => "ok",
            (error: unknown) => Code[ConnectError.from(error).code],
          );
      expect(await grpcFrom(guesser)).toBe("ResourceExhausted");

      // The neighbour, behind the same proxy: its calls are answered, and its own first failure is a 401, not a 429.
      expect((await get(path, neighbour, { "x-api-key": key })).status).toBe(200);
      expect(await grpcFrom(neighbour)).toBe("ok");
      expect((await get(path, neighbour, { "x-api-key": "wrong-key-3-0123456789" })).status).toBe(401);
    });

    it("counts each browser's event streams against its own address, not the proxy's", async () => {
      const path = `${http}/api/endpoints/logs.all?project=${project}`;
      const opened = [];
      for (let i = 0; i < 3; i++) opened.push(await openEventStream(path, watcher, { "x-api-key": key }));
      opened.push(await openEventStream(path, otherWatcher, { "x-api-key": key }));
      for (const stream of opened) stream.close();
      // Two per address: the first browser's third is refused, the second browser's first is not.
      expect(opened.map((stream) => stream.status)).toEqual([200, 200, 429, 200]);
    });
  },
);

// The floor of the cache-hit GET for this design: a bare handler sending the
// service's bytes and headers, on the service's single-port server, in a
// process that has the embedded engine open, as the service does. The gap
// from the bare node:http baseline to this one is the cost of the design,
// not of the handler. Prints its port.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createClient } from "@clickhouse/client";
import { createChdbConnection } from "chdb/connection";
import { createSinglePortServer } from "../src/transport/index.js";
import { temporaryDirectory } from "./temp-directory.js";

const body = readFileSync(process.argv[2]!);
const engine = createClient({ connection: createChdbConnection({ path: temporaryDirectory("sqe-floor-") }) as never });
await (await engine.query({ query: "SELECT 1", format: "JSONEachRow" })).json();

const server = createSinglePortServer(((
  _request: unknown,
  response: { writeHead(s: number, h: object): void; end(b: Buffer): void },
) => {
  response.writeHead(200, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(body.length),
    "access-control-allow-origin": "*",
    "access-control-expose-headers": "X-Cache, Age, X-Request-Id, Retry-After",
    "x-request-id": randomUUID(),
    "x-cache": "HIT",
    age: "0",
  });
  response.end(body);
}) as never);
const { port } = await server.listen(0, "127.0.0.1");
process.stdout.write(`port ${port}\n`);

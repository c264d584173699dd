// Baseline for the cache-hit GET: a bare node:http server answering every
// request with the same bytes the service sends. Prints its port.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const body = readFileSync(process.argv[2]!);
const server = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": String(body.length) });
  response.end(body);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`port ${(server.address() as { port: number }).port}\n`);
});

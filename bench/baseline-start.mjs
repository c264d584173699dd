// Baseline for a restart: the least any service on the embedded engine does
// before it is ready. Node starts, opens chDB on the data directory given
// (the same client and connection the service uses), asks it one question,
// and answers GET /readyz 200 on a port it prints. Plain JavaScript, so that
// no TypeScript loader is counted in the floor.
import { createServer } from "node:http";
import { createClient } from "@clickhouse/client";
import { createChdbConnection } from "chdb/connection";

const client = createClient({ connection: createChdbConnection({ path: process.argv[2] }) });
const { success } = await client.ping();
if (!success) throw new Error("the embedded engine did not answer");
const server = createServer((request, response) => {
  response.writeHead(request.url === "/readyz" ? 200 : 404).end();
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.once("SIGTERM", () => {
  server.close();
  void client.close().then(() => process.exit(0));
});

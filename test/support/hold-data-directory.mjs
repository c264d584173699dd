// Holds a chDB data directory from another process until SIGTERM, so that a
// service started on it finds its embedded engine failing. Prints "holding".
// Plain JavaScript, so that Node runs it without a TypeScript loader.
import { createChdbConnection } from "chdb/connection";

const connection = createChdbConnection({ path: process.argv[2] });
await connection.query({ query: "SELECT 1" });
process.stdout.write("holding\n");
process.once("SIGTERM", () => {
  void connection.close().then(() => process.exit(0));
});
setInterval(() => {}, 1 << 30);

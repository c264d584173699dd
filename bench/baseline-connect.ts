// Baseline for cache-hit gRPC and Connect calls: a bare Connect-Node handler
// of usage.v1.UsageService/GetApiCounts returning one fixed message, on the
// same kind of port (HTTP/1.1 and h2c). Prints its port.
import { readFileSync } from "node:fs";
import { fromBinary } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { GetApiCountsResponseSchema, UsageService } from "../src/gen/usage/v1/usage_pb.js";
import { createSinglePortServer } from "../src/transport/index.js";

const message = fromBinary(GetApiCountsResponseSchema, readFileSync(process.argv[2]!));
const handler = connectNodeAdapter({
  routes: (router) => router.service(UsageService, { getApiCounts: () => message }),
});
const server = createSinglePortServer(handler);
const { port } = await server.listen(0, "127.0.0.1");
process.stdout.write(`port ${port}\n`);

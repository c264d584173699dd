// Page tokens across services: a token sealed by one service opens in another
// given the same PAGE_TOKEN_SECRET (a replica), and in one rotating to a new
// secret with it as PAGE_TOKEN_PREVIOUS_SECRET; a forged token whose time is
// out of range is a 400 naming page_token on GET and on every RPC client.
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GetAllLogsRequestSchema, LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { edgeRow, insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";
import { allClients, type RpcClient } from "../../support/rpc-clients.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);
const project = "token-secrets";
const logsAll = `/api/endpoints/logs.all?project=${project}`;
const oldSecret = "the-secret-before-the-rotation-0123";
const newSecret = "the-secret-after-the-rotation-45678";

// 250 records a second apart, newest first: record i is i + 60 seconds old, id `r<i>`.
const ids = Array.from({ length: 250 }, (_, i) => `r${String(i).padStart(3, "0")}`);

let warehouse: Warehouse;
const servers: Record<"sealer" | "replica" | "rotating" | "rotated" | "unconfigured", TestServer> = {} as never;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertRows(
    warehouse,
    "edge_logs",
    ids.map((id, i) => edgeRow({ project, id, timestamp: ts(NOW - 60_000 - i * 1000) })),
  );
  servers.sealer = await startTestServer(warehouse, NOW, { pageTokenSecrets: { secret: oldSecret } });
  servers.replica = await startTestServer(warehouse, NOW, { pageTokenSecrets: { secret: oldSecret } });
  servers.rotating = await startTestServer(warehouse, NOW, {
    pageTokenSecrets: { secret: newSecret, previousSecret: oldSecret },
  });
  servers.rotated = await startTestServer(warehouse, NOW, { pageTokenSecrets: { secret: newSecret } });
  servers.unconfigured = await startTestServer(warehouse, NOW);
});
afterAll(async () => {
  for (const server of Object.values(servers)) await server.close();
  await warehouse?.close();
});

async function page(server: TestServer, token?: string) {
  const target = token === undefined ? logsAll : `${logsAll}&page_token=${token}`;
  const response = await fetch(`${server.url}${target}`, { headers: { "x-api-key": TEST_API_KEY } });
  const body = (await response.json()) as {
    result?: { id: string }[];
    next_page_token?: string;
    error?: { code: string; details: { field: string }[] };
  };
  return {
    status: response.status,
    ids: body.result?.map((r) => r.id),
    token: body.next_page_token,
    refusal: body.error && { code: body.error.code, fields: body.error.details.map((d) => d.field) },
  };
}

const refused = { status: 400, refusal: { code: "invalid_argument", fields: ["page_token"] } };

describe("page tokens with PAGE_TOKEN_SECRET", () => {
  it("are opened by another service with the same secret, which answers the next page", async () => {
    const first = await page(servers.sealer);
    expect(first.ids).toEqual(ids.slice(0, 100));
    const second = await page(servers.replica, first.token);
    expect(second).toMatchObject({ status: 200, ids: ids.slice(100, 200) });
  });

  it("are refused by a service with another secret or none", async () => {
    const { token } = await page(servers.sealer);
    expect(await page(servers.rotated, token)).toMatchObject(refused);
    expect(await page(servers.unconfigured, token)).toMatchObject(refused);
  });

  it("sealed with the previous secret open while rotating, and the new ones once the previous is dropped", async () => {
    const { token: oldToken } = await page(servers.sealer);
    const second = await page(servers.rotating, oldToken);
    expect(second).toMatchObject({ status: 200, ids: ids.slice(100, 200) });
    // The rotating service seals with the new secret: the rotated one opens it, the old one does not.
    const third = await page(servers.rotated, second.token);
    expect(third).toMatchObject({ status: 200, ids: ids.slice(200, 250) });
    expect(third.token).toBeUndefined();
    expect(await page(servers.sealer, second.token)).toMatchObject(refused);
  });
});

/** A token with a MAC of zeros whose time is `micros`: the shape of a token, forged. */
function forged(micros: bigint): string {
  const time = Buffer.alloc(8);
  time.writeBigInt64BE(micros);
  return Buffer.concat([time, Buffer.from("r000"), Buffer.alloc(32)]).toString("base64url");
}

// Past Date's range (±8.64e15 ms) and past DateTime64's (1900-2299): converting either to a parameter fails.
const outOfRange = [
  ["the largest 64-bit time", 2n ** 63n - 1n],
  ["the year 2300", BigInt(Date.UTC(2300, 0, 1)) * 1000n],
] as const;

describe("a forged page token whose time is out of range", () => {
  it.each(outOfRange)("with %s is 400 invalid_argument naming page_token on GET", async (_label, micros) => {
    expect(await page(servers.sealer, forged(micros))).toMatchObject(refused);
  });

  let clients: RpcClient[];
  beforeAll(() => {
    clients = allClients(servers.sealer.url, servers.sealer.address);
  });
  afterAll(() => {
    for (const client of clients ?? []) client.close();
  });

  it.each(outOfRange)("with %s is INVALID_ARGUMENT naming page_token on every RPC client", async (_label, micros) => {
    const request = create(GetAllLogsRequestSchema, { project, pageToken: forged(micros) });
    for (const client of clients) {
      const outcome = await client.call(LogsService, LogsService.method.getAllLogs, request, {
        headers: { "x-api-key": TEST_API_KEY },
      });
      expect({ client: client.name, ...outcome }).toMatchObject({
        client: client.name,
        ok: false,
        code: Code.InvalidArgument,
      });
      if (outcome.ok) continue;
      expect(outcome.message).toContain("page_token");
      // @grpc/grpc-js reads no error details; the Connect clients read the field violation.
      if (client.name !== "@grpc/grpc-js") expect(outcome.fields).toEqual(["page_token"]);
    }
  });
});

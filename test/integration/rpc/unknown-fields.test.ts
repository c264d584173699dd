// A field the saved query does not declare is refused on every transport, as
// an undeclared GET parameter is: a Connect JSON key (`sql`, say) and a
// binary field of a number the request message does not have, which a
// client of another version of the proto could send.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { describe, expect, it } from "vitest";
import { LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import { TEST_API_KEY, useScenarioServer } from "../../support/test-server.js";

const scenario = useScenarioServer();

const postJson = (body: unknown) =>
  fetch(`${scenario.server().url}/logs.v1.LogsService/GetAllLogs`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": TEST_API_KEY },
    body: JSON.stringify(body),
  });

describe("fields a saved query does not declare", () => {
  it("answers a Connect JSON call with an unknown key invalid_argument, naming the key", async () => {
    const response = await postJson({ project: "rpc", sql: "SELECT 1" });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe("invalid_argument");
    expect(body.message).toContain('key "sql" is unknown');
  });

  it("answers the same call without it 200", async () => {
    expect((await postJson({ project: "rpc" })).status).toBe(200);
  });

  it("answers a gRPC call carrying an unknown field number INVALID_ARGUMENT, naming the number", async () => {
    const client = createClient(LogsService, createGrpcTransport({ baseUrl: scenario.server().url }));
    const request = create(LogsService.method.getAllLogs.input, { project: "rpc" });
    // Field 99, length-delimited, holding "SELECT 1": its data is the length and the bytes (the tag is written from no and wireType).
    request.$unknown = [{ no: 99, wireType: 2, data: new Uint8Array([8, ...new TextEncoder().encode("SELECT 1")]) }];
    const error = await client
      .getAllLogs(request, { headers: { "x-api-key": TEST_API_KEY } })
      .catch((e: unknown) => ConnectError.from(e));
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
    expect((error as ConnectError).rawMessage).toBe(
      "field 99 is not a parameter of logs.all (it takes project, project_tier, iso_timestamp_start, iso_timestamp_end, page_token)",
    );
  });
});

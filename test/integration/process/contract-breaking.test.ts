// The contract check that `npm test` runs (`buf breaking` against the
// released image, proto/released.binpb): in a copy of proto/, a removed or
// renumbered field, a changed type or a removed method fails with buf's own
// message, while a new optional field or a new saved query passes.
import { spawnSync } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const root = join(import.meta.dirname, "../../..");
const released = join(root, "proto/released.binpb");
const usageProto = "proto/usage/v1/usage.proto";
let copy: string;

beforeEach(() => {
  copy = makeTemporaryDirectory("sqe-contract-");
  cpSync(join(root, "buf.yaml"), join(copy, "buf.yaml"));
  cpSync(join(root, "proto"), join(copy, "proto"), { recursive: true });
});
afterEach(() => removeTemporaryDirectory(copy));

/** Replaces `from` (which must be there) by `to` in the copy's usage.proto. */
function edit(from: string, to: string): void {
  const path = join(copy, usageProto);
  const text = readFileSync(path, "utf8");
  expect(text).toContain(from);
  writeFileSync(path, text.replace(from, to));
}

/** `buf breaking` in the copy against the released image: its exit code and what it printed. */
function breaking(): { status: number | null; output: string } {
  const result = spawnSync(join(root, "node_modules/.bin/buf"), ["breaking", "--against", released], {
    cwd: copy,
    encoding: "utf8",
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const watchMethod = `  rpc WatchApiCounts(GetApiCountsRequest) returns (stream GetApiCountsResponse) {
    option idempotency_level = NO_SIDE_EFFECTS;
  }
`;

describe("buf breaking against the released contract", () => {
  it("passes the contract as it is in the repository", () => {
    expect(breaking()).toEqual({ status: 0, output: "" });
  });

  it.each([
    {
      change: "a removed field",
      from: "  int64 total_realtime_requests = 5;\n",
      to: "",
      message:
        'Previously present field "5" with name "total_realtime_requests" on message "ApiCountsRow" was deleted.',
    },
    {
      change: "a renumbered field",
      from: "int64 total_realtime_requests = 5;",
      to: "int64 total_realtime_requests = 6;",
      message:
        'Previously present field "5" with name "total_realtime_requests" on message "ApiCountsRow" was deleted.',
    },
    {
      change: "a changed type",
      from: "int64 total_auth_requests = 4;",
      to: "string total_auth_requests = 4;",
      message:
        'Field "4" with name "total_auth_requests" on message "ApiCountsRow" changed type from "int64" to "string".',
    },
    {
      change: "a removed method",
      from: watchMethod,
      to: "",
      message: 'Previously present RPC "WatchApiCounts" on service "UsageService" was deleted.',
    },
  ])("fails $change with buf's message", ({ from, to, message }) => {
    edit(from, to);
    const { status, output } = breaking();
    expect(status).not.toBe(0);
    expect(output).toContain(`${usageProto}:`);
    expect(output).toContain(message);
  });

  it("passes a new optional field", () => {
    edit(
      "  int64 total_realtime_requests = 5;\n",
      "  int64 total_realtime_requests = 5;\n  // Requests whose path contains /graphql.\n  optional int64 total_graphql_requests = 6;\n",
    );
    expect(breaking()).toEqual({ status: 0, output: "" });
  });

  it("passes a new saved query beside the old one", () => {
    edit(
      watchMethod,
      `${watchMethod}  // Weekly counts.
  // buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
  rpc GetWeeklyApiCounts(GetApiCountsRequest) returns (GetApiCountsResponse) {
    option idempotency_level = NO_SIDE_EFFECTS;
    option (endpoints.v1.endpoint) = {
      name: "usage.weekly-api-counts"
      id: "0d6c1b8e-3f2a-4e5d-9c7b-1a2b3c4d5e6f"
      max_rows: 1000
    };
  }
`,
    );
    expect(breaking()).toEqual({ status: 0, output: "" });
  });
});

// The API key check: where the key is read from, exact comparison against
// every accepted key, and the key id of the credential (never the key).
import { createHash } from "node:crypto";
import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createApiKeyCheck, presentedSecret } from "../../src/auth/index.js";

const first = "sk_first_0123456789abcdef";
const second = "another-key-of-other-length";

/** Runs the check on `headers`; the credential's id, or the error code. */
function check(headers: Record<string, string>): string | Code {
  const run = createApiKeyCheck([first, second]);
  return run(presentedSecret({ get: (name) => headers[name] ?? null }))?.id ?? Code.Unauthenticated;
}

const idOf = (key: string) => `api-key:${createHash("sha256").update(key).digest("hex").slice(0, 12)}`;

describe("createApiKeyCheck", () => {
  it.each([
    ["the first key in x-api-key", { "x-api-key": first }, idOf(first)],
    ["the second key in x-api-key", { "x-api-key": second }, idOf(second)],
    ["a bearer token", { authorization: `Bearer ${second}` }, idOf(second)],
    ["a lower-case bearer with spaces around", { authorization: `bearer   ${first}  ` }, idOf(first)],
    ["x-api-key before authorization", { "x-api-key": first, authorization: "Bearer wrong" }, idOf(first)],
    ["an empty x-api-key, then authorization", { "x-api-key": "", authorization: `Bearer ${first}` }, idOf(first)],
  ])("accepts %s and names that key in the credential", (_label, headers, id) => {
    expect(check(headers)).toBe(id);
  });

  it.each([
    ["no key", {}],
    ["the last character changed", { "x-api-key": `${first.slice(0, -1)}g` }],
    ["the first character changed", { "x-api-key": `t${first.slice(1)}` }],
    ["a prefix of a key", { "x-api-key": first.slice(0, -1) }],
    ["a key with a character added", { "x-api-key": `${first}0` }],
    ["a key repeated", { "x-api-key": first + first }],
    ["the two keys joined", { "x-api-key": `${first}, ${second}` }],
    ["a single character", { "x-api-key": "s" }],
    ["a key in another case", { "x-api-key": first.toUpperCase() }],
    ["a bearer without a token", { authorization: "Bearer " }],
    ["a key under another scheme", { authorization: `Basic ${first}` }],
  ])("refuses %s as UNAUTHENTICATED", (_label, headers) => {
    expect(check(headers)).toBe(Code.Unauthenticated);
  });

  it("accepts nothing when it has no keys", () => {
    expect(createApiKeyCheck([])(first)).toBeUndefined();
  });
});

// The personal data marked in proto/ and the checks of the SQL that masks it:
// the marks of logs.all as written, every saved query of sql/ whose row has
// marked fields reading {unmasked}, and the start-up problems of marks and
// SQL, on the project's row messages and on a fixture row built here.
import { create, createFileRegistry, type DescMessage, setExtension } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldOptionsSchema,
  FileDescriptorProtoSchema,
  file_google_protobuf_descriptor,
  file_google_protobuf_struct,
} from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { createEndpointRegistry, savedQueryServices } from "../../src/endpoints/index.js";
import { personalDataProblems, personalFieldsOf } from "../../src/endpoints/personal-data.js";
import {
  file_endpoints_v1_endpoint_options,
  PersonalDataSchema,
  personal,
} from "../../src/gen/endpoints/v1/endpoint_options_pb.js";
import { LogRecordSchema } from "../../src/gen/logs/v1/logs_pb.js";
import { ApiCountsRowSchema } from "../../src/gen/usage/v1/usage_pb.js";
import { readSavedQuerySql } from "../../src/warehouse/index.js";

const logsAllSql = readSavedQuerySql("logs.all");
const metadataKeys = [
  "cf_connecting_ip",
  "cf-connecting-ip",
  "x_forwarded_for",
  "x-forwarded-for",
  "x_real_ip",
  "x-real-ip",
  "true_client_ip",
  "true-client-ip",
  "user_agent",
  "user-agent",
  "city",
  "postalCode",
  "latitude",
  "longitude",
  "email",
];

describe("the marks of proto/", () => {
  it("mark addresses in event_message, and addresses and the listed keys in metadata", () => {
    expect(personalFieldsOf(LogRecordSchema)).toEqual([
      { name: "event_message", addresses: true, keys: [] },
      { name: "metadata", addresses: true, keys: metadataKeys },
    ]);
  });

  it("are masked by every saved query of sql/ whose row has them, and only by those", () => {
    const registry = createEndpointRegistry({ services: savedQueryServices });
    for (const e of registry.endpoints) {
      const marked = personalFieldsOf(e.rowSchema).length > 0;
      expect([e.definition.name, e.masksPersonalData]).toEqual([e.definition.name, marked]);
    }
    expect(registry.endpoints.filter((e) => e.masksPersonalData).map((e) => e.definition.name)).toEqual(["logs.all"]);
  });
});

describe("personalDataProblems", () => {
  const reading = (type = "UInt8") => `SELECT {unmasked:${type}} AS u`;
  const withKeys = (keys: string[], type?: string) => `${reading(type)}, '(${keys.join("|")})' AS p`;

  it.each([
    ["logs.all's own SQL", logsAllSql],
    ["an SQL that does not read {unmasked} (its result then depends on no credential)", "SELECT 1"],
    ["an SQL naming every key in one literal", withKeys(metadataKeys)],
  ])("finds none for LogRecord and %s", (_label, sql) => {
    expect(personalDataProblems("logs.all", sql, LogRecordSchema)).toEqual([]);
  });

  it("refuses {unmasked} for a row with nothing marked", () => {
    expect(personalDataProblems("usage.api-counts", reading(), ApiCountsRowSchema)).toEqual([
      "usage.api-counts: the SQL reads {unmasked} but no field of usage.v1.ApiCountsRow is marked personal",
    ]);
  });

  it("refuses {unmasked} of another type than UInt8", () => {
    expect(personalDataProblems("logs.all", withKeys(metadataKeys, "Bool"), LogRecordSchema)).toEqual([
      "logs.all: {unmasked} must be UInt8, not Bool",
    ]);
  });

  it.each([
    ["absent", metadataKeys.filter((k) => k !== "email")],
    ["only part of a longer name", [...metadataKeys.filter((k) => k !== "email"), "emails"]],
  ])("names a marked key that the SQL names nowhere in a literal: %s", (_label, keys) => {
    expect(personalDataProblems("logs.all", withKeys(keys), LogRecordSchema)).toEqual([
      'logs.all: personal field metadata: key "email" does not appear in a quoted literal of the SQL, so it would not be masked',
    ]);
  });

  it("does not count a key named in a comment", () => {
    const sql = `${withKeys(metadataKeys.filter((k) => k !== "city"))}\n-- 'city'`;
    expect(personalDataProblems("logs.all", sql, LogRecordSchema)).toEqual([
      'logs.all: personal field metadata: key "city" does not appear in a quoted literal of the SQL, so it would not be masked',
    ]);
  });

  it.each([
    [
      "a mark of neither addresses nor keys",
      { field: "text", mark: {} },
      "personal field text marks neither addresses nor keys",
    ],
    [
      "addresses on a number",
      { field: "count", mark: { addresses: true } },
      "personal field count marks addresses but is not text",
    ],
    [
      "keys on a string",
      { field: "text", mark: { keys: ["ip"] } },
      "personal field text marks JSON keys but is not a google.protobuf.Struct",
    ],
    [
      "a key the SQL could not name in a pattern",
      { field: "json", mark: { keys: ["a.b"] } },
      'personal field json: key "a.b" must be letters, digits, _ or -',
    ],
  ])("refuses %s", (_label, { field, mark }, problem) => {
    expect(personalDataProblems("fixture.get", `${reading()}, 'ip'`, fixtureRow(field, mark))).toEqual([
      `fixture.get: ${problem}`,
    ]);
  });

  it("accepts addresses on a string and a Struct, and keys on a Struct", () => {
    expect(
      personalDataProblems("fixture.get", `${reading()}, 'ip'`, fixtureRow("json", { addresses: true, keys: ["ip"] })),
    ).toEqual([]);
    expect(personalDataProblems("fixture.get", reading(), fixtureRow("text", { addresses: true }))).toEqual([]);
  });
});

/** A row `fixture.v1.Row` of a string `text`, an int32 `count` and a Struct `json`, with `mark` on `field`. */
function fixtureRow(field: string, mark: { addresses?: boolean; keys?: string[] }): DescMessage {
  const { STRING, INT32, MESSAGE } = FieldDescriptorProto_Type;
  const { OPTIONAL } = FieldDescriptorProto_Label;
  const options = create(FieldOptionsSchema);
  setExtension(options, personal, create(PersonalDataSchema, mark));
  const fields = [
    { name: "text", type: STRING },
    { name: "count", type: INT32 },
    { name: "json", type: MESSAGE, typeName: ".google.protobuf.Struct" },
  ].map((f, i) => ({
    ...f,
    jsonName: f.name,
    number: i + 1,
    label: OPTIONAL,
    ...(f.name === field ? { options } : {}),
  }));
  const file = create(FileDescriptorProtoSchema, {
    name: "fixture/v1/row.proto",
    package: "fixture.v1",
    syntax: "proto3",
    dependency: ["endpoints/v1/endpoint_options.proto", "google/protobuf/struct.proto"],
    messageType: [{ name: "Row", field: fields }],
  });
  const registry = createFileRegistry(file, (name) =>
    [file_endpoints_v1_endpoint_options, file_google_protobuf_struct, file_google_protobuf_descriptor].find(
      (f) => f.proto.name === name,
    ),
  );
  return registry.getMessage("fixture.v1.Row")!;
}

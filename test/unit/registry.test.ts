// The registry refuses, at start-up, the mistakes a new saved query can
// bring: in its proto (built here as a fixture file descriptor, as buf would
// produce it) or between its SQL and its request fields.
import { create, createFileRegistry, setExtension, type DescService } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  FieldOptionsSchema,
  MethodOptionsSchema,
  file_google_protobuf_descriptor,
} from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { createEndpointRegistry, savedQueryServices } from "../../src/endpoints/index.js";
import {
  EndpointDefinitionSchema,
  ParameterRuleSchema,
  endpoint,
  parameter,
  file_endpoints_v1_endpoint_options,
} from "../../src/gen/endpoints/v1/endpoint_options_pb.js";
import { readSavedQuerySql } from "../../src/warehouse/index.js";

interface FixtureMethod {
  name: string;
  /** The endpoint option; none when undefined. */
  definition?: { name: string; id: string; sandboxed?: boolean };
  serverStreaming?: boolean;
}

interface Fixture {
  methods?: FixtureMethod[];
  /** Request fields; `int` ones are int32; `allowedValues` their parameter rule's. Default: project and interval, strings. */
  requestFields?: { name: string; int?: boolean; allowedValues?: string[] }[];
  /** Whether the response has `repeated Row result = 1`. Default true. */
  responseHasResult?: boolean;
}

const { STRING, INT32, MESSAGE } = FieldDescriptorProto_Type;
const { OPTIONAL, REPEATED } = FieldDescriptorProto_Label;

/** Field options carrying a parameter rule with these allowed values; none when undefined. */
function parameterOptions(allowedValues: string[] | undefined) {
  if (allowedValues === undefined) return undefined;
  const options = create(FieldOptionsSchema);
  setExtension(options, parameter, create(ParameterRuleSchema, { allowedValues }));
  return options;
}

/** A one-service proto file `fixture/v1/fixture.proto`, as a service descriptor. */
function fixtureService(fixture: Fixture = {}): DescService {
  const methods = fixture.methods ?? [
    { name: "Get", definition: { name: "fixture.get", id: "0b6c4f3e-8a1c-4f3e-b5d7-9e1f3a5c7b9d" } },
  ];
  const requestFields = fixture.requestFields ?? [{ name: "project" }, { name: "interval" }];
  const file = create(FileDescriptorProtoSchema, {
    name: "fixture/v1/fixture.proto",
    package: "fixture.v1",
    syntax: "proto3",
    dependency: ["endpoints/v1/endpoint_options.proto"],
    messageType: [
      {
        name: "Request",
        field: requestFields.map((f, i) => ({
          name: f.name,
          jsonName: f.name,
          number: i + 1,
          label: OPTIONAL,
          type: f.int ? INT32 : STRING,
          options: parameterOptions(f.allowedValues),
        })),
      },
      { name: "Row", field: [{ name: "id", jsonName: "id", number: 1, label: OPTIONAL, type: STRING }] },
      {
        name: "Response",
        field:
          fixture.responseHasResult === false
            ? [
                {
                  name: "rows",
                  jsonName: "rows",
                  number: 1,
                  label: REPEATED,
                  type: MESSAGE,
                  typeName: ".fixture.v1.Row",
                },
              ]
            : [
                {
                  name: "result",
                  jsonName: "result",
                  number: 1,
                  label: REPEATED,
                  type: MESSAGE,
                  typeName: ".fixture.v1.Row",
                },
              ],
      },
    ],
    service: [
      {
        name: "FixtureService",
        method: methods.map((m) => {
          const options = create(MethodOptionsSchema);
          if (m.definition !== undefined)
            setExtension(options, endpoint, create(EndpointDefinitionSchema, m.definition));
          return {
            name: m.name,
            inputType: ".fixture.v1.Request",
            outputType: ".fixture.v1.Response",
            serverStreaming: m.serverStreaming ?? false,
            options,
          };
        }),
      },
    ],
  });
  const dependencies = [file_endpoints_v1_endpoint_options, file_google_protobuf_descriptor];
  const registry = createFileRegistry(file, (name) => dependencies.find((d) => d.proto.name === name));
  return registry.getService("fixture.v1.FixtureService")!;
}

/** The fixture's Get method and a second one, GetAgain, with this name and id. */
function withSecondMethod(name: string, id: string): Fixture {
  return {
    methods: [
      { name: "Get", definition: { name: "fixture.get", id: "0b6c4f3e-8a1c-4f3e-b5d7-9e1f3a5c7b9d" } },
      { name: "GetAgain", definition: { name, id } },
    ],
  };
}

const usesBoth = "SELECT {project:String} AS id WHERE {interval:String} != ''";
const getMethod = { name: "Get", id: "0b6c4f3e-8a1c-4f3e-b5d7-9e1f3a5c7b9d" };
/** The fixture with `interval` allowed these values. */
const intervals = (...allowedValues: string[]): Fixture => ({
  requestFields: [{ name: "project" }, { name: "interval", allowedValues }],
});
const namesHourlyAndDaily =
  "SELECT {project:String} AS id, multiIf({interval:String} = 'hourly', 3600, {interval:String} = 'daily', 86400, 3600) AS s";

describe("createEndpointRegistry", () => {
  it("accepts a saved query whose SQL uses every request field, and now", () => {
    const sql = `${usesBoth} AND {now:DateTime64(6, 'UTC')} IS NOT NULL`;
    const registry = createEndpointRegistry({ services: [fixtureService()], readSql: () => sql });
    expect(registry.find("fixture.get")?.parameters.map((p) => p.name)).toEqual(["project", "interval"]);
  });

  it("accepts allowed values that the SQL names as quoted literals", () => {
    const registry = createEndpointRegistry({
      services: [fixtureService(intervals("hourly", "daily"))],
      readSql: () => namesHourlyAndDaily,
    });
    expect(registry.find("fixture.get")?.parameters[1]?.allowedValues).toEqual(["hourly", "daily"]);
  });

  it("accepts the project's own saved queries", () => {
    const registry = createEndpointRegistry({ services: savedQueryServices, readSql: readSavedQuerySql });
    expect(registry.endpoints.map((e) => e.definition.name)).toEqual([
      "functions.invocation-stats",
      "usage.api-counts",
      "usage.api-counts.v2",
      "logs.all",
      "service.call-stats",
    ]);
  });

  it.each([
    [
      "a placeholder no request field provides",
      {},
      "SELECT {project:String} AS id WHERE {interval:String} != '' AND {tier:String} = ''",
      "fixture.get: the SQL uses {tier} but no request field provides it (fields: project, interval)",
    ],
    [
      "a request field the SQL never uses",
      {},
      "SELECT {project:String} AS id",
      "fixture.get: request field interval is not used by the SQL",
    ],
    [
      "a request field used only in a comment",
      {},
      "-- {interval:String} is the bucket size\nSELECT {project:String} AS id",
      "fixture.get: request field interval is not used by the SQL",
    ],
    [
      "a method without the endpoint option",
      { methods: [{ name: "Get" }] },
      usesBoth,
      "fixture.v1.FixtureService.Get has no (endpoints.v1.endpoint) option",
    ],
    [
      "a streaming method",
      {
        methods: [
          {
            name: "Get",
            serverStreaming: true,
            definition: { name: "fixture.get", id: "0b6c4f3e-8a1c-4f3e-b5d7-9e1f3a5c7b9d" },
          },
        ],
      },
      usesBoth,
      "Get: saved queries are unary",
    ],
    [
      "a request field that is not a string",
      { requestFields: [{ name: "project" }, { name: "interval", int: true }] },
      usesBoth,
      "fixture.v1.Request.interval: request parameters are strings",
    ],
    [
      "a response without a repeated result",
      { responseHasResult: false },
      usesBoth,
      "fixture.v1.Response must have a repeated message field named result",
    ],
    [
      "two methods with one name",
      withSecondMethod("fixture.get", "1b6c4f3e-8a1c-4f3e-b5d7-9e1f3a5c7b9d"),
      usesBoth,
      "endpoint name or id fixture.get is used twice",
    ],
    [
      "two methods with one id in another letter case",
      withSecondMethod("fixture.again", "0B6C4F3E-8A1C-4F3E-B5D7-9E1F3A5C7B9D"),
      usesBoth,
      "endpoint name or id 0b6c4f3e-8a1c-4f3e-b5d7-9e1f3a5c7b9d is used twice",
    ],
    [
      "an allowed value the SQL never names (it would get the default branch's data)",
      intervals("hourly", "daily", "weekly"),
      namesHourlyAndDaily,
      `fixture.get: allowed value "weekly" of interval does not appear in the SQL as 'weekly', so the SQL would answer it as another value`,
    ],
    [
      "an allowed value named only in a comment",
      intervals("hourly", "daily", "weekly"),
      `-- interval 'weekly' is a week\n${namesHourlyAndDaily}`,
      `fixture.get: allowed value "weekly" of interval does not appear in the SQL as 'weekly'`,
    ],
    [
      "an allowed value named only unquoted",
      intervals("hourly", "daily", "weekly"),
      `${namesHourlyAndDaily}, 1 AS weekly`,
      `fixture.get: allowed value "weekly" of interval does not appear in the SQL as 'weekly'`,
    ],
    [
      "a saved query declared sandboxed, which this service cannot do",
      { methods: [{ name: "Get", definition: { ...getMethod, name: "fixture.get", sandboxed: true } }] },
      usesBoth,
      "fixture.get: sandboxed is true, but this service cannot sandbox a saved query (run caller SQL around it); declare sandboxed: false",
    ],
  ] as const)("refuses %s", (_label, fixture, sql, message) => {
    expect(() =>
      createEndpointRegistry({ services: [fixtureService(fixture as Fixture)], readSql: () => sql }),
    ).toThrow(message);
  });
});

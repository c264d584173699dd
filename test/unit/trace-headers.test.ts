// The W3C headers a warehouse query carries (ClickHouse joins the trace with
// them), and the switch that decides from the OTEL_* variables whether the
// SDK is loaded at all.
import { describe, expect, it } from "vitest";
import { traceHeadersOf, tracesWanted } from "../../src/observability/index.js";

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const spanId = "00f067aa0ba902b7";

describe("traceHeadersOf", () => {
  it.each([
    [{ traceId, spanId, traceFlags: 1 }, { traceparent: `00-${traceId}-${spanId}-01` }],
    [{ traceId, spanId, traceFlags: 0 }, { traceparent: `00-${traceId}-${spanId}-00` }],
    [{ traceId, spanId, traceFlags: 255 }, { traceparent: `00-${traceId}-${spanId}-ff` }],
    [
      { traceId, spanId, traceFlags: 1, traceState: "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE" },
      { traceparent: `00-${traceId}-${spanId}-01`, tracestate: "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE" },
    ],
    [{ traceId, spanId, traceFlags: 1, traceState: "" }, { traceparent: `00-${traceId}-${spanId}-01` }],
  ])("makes %j into %j", (span, headers) => {
    expect(traceHeadersOf(span)).toEqual(headers);
  });

  it.each([
    [{ traceId: "0".repeat(32), spanId, traceFlags: 1 }, /trace id/],
    [{ traceId: traceId.toUpperCase(), spanId, traceFlags: 1 }, /trace id/],
    [{ traceId: traceId.slice(1), spanId, traceFlags: 1 }, /trace id/],
    [{ traceId, spanId: "0".repeat(16), traceFlags: 1 }, /span id/],
    [{ traceId, spanId: `${spanId}00`, traceFlags: 1 }, /span id/],
    [{ traceId, spanId, traceFlags: 256 }, /trace flags/],
    [{ traceId, spanId, traceFlags: 1.5 }, /trace flags/],
  ])("refuses %j, which W3C does not allow", (span, message) => {
    expect(() => traceHeadersOf(span)).toThrow(message);
  });
});

describe("tracesWanted", () => {
  it.each<[Record<string, string>, boolean]>([
    [{}, false],
    [{ OTEL_SERVICE_NAME: "x", OTEL_TRACES_SAMPLER: "always_on", OTEL_BSP_SCHEDULE_DELAY: "100" }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "" }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "  " }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "TRUE" }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "false" }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "otlp" }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }, true],
  ])("is %s for %j", (env, wanted) => {
    expect(tracesWanted(env)).toBe(wanted);
  });

  it.each([["OTEL_EXPORTER_OTLP_PROTOCOL"], ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"]])(
    "refuses a protocol the SDK does not speak in %s, even with no endpoint",
    (name) => {
      expect(() => tracesWanted({ [name]: "http/xml" })).toThrow(
        `${name} must be one of http/protobuf, http/json, grpc, got "http/xml"`,
      );
    },
  );
});

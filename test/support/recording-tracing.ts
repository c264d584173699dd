// A Tracing for unit tests that records its spans instead of exporting them.
// The current span follows the async flow as OpenTelemetry's context does
// (AsyncLocalStorage), so work started in `within` keeps it across awaits.
import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import {
  inSpanOf,
  type TraceAttributes,
  type TraceHeaders,
  type TraceSpan,
  type Tracing,
} from "../../src/observability/index.js";

export interface RecordedSpan extends TraceSpan {
  name: string;
  kind: "call" | "root" | "child";
  parent: RecordedSpan | undefined;
  links: RecordedSpan[];
  attributes: TraceAttributes;
  /** The message it was failed with. */
  failure: string | undefined;
  /** How many times end() was called (OpenTelemetry warns past one). */
  ends: number;
  /** Its span id: its place in `spans` (from 1), as 16 hex digits. */
  id: string;
}

export interface RecordingTracing extends Tracing {
  /** The one trace id of every span, random per instance. */
  traceId: string;
  spans: RecordedSpan[];
  current(): RecordedSpan | undefined;
}

export function recordingTracing(): RecordingTracing {
  const spans: RecordedSpan[] = [];
  const traceId = randomBytes(16).toString("hex");
  const storage = new AsyncLocalStorage<RecordedSpan[]>();
  const current = () => storage.getStore()?.at(-1);
  const make = (
    name: string,
    kind: RecordedSpan["kind"],
    parent: RecordedSpan | undefined,
    attributes: TraceAttributes,
    links: TraceSpan[] = [],
  ) => {
    const id = (spans.length + 1).toString(16).padStart(16, "0");
    const span: RecordedSpan = {
      name,
      kind,
      parent,
      links: links as RecordedSpan[],
      attributes: { ...attributes },
      failure: undefined,
      ends: 0,
      id,
      // As OpenTelemetry does, an undefined value leaves the attribute as it was.
      setAttributes: (more) => {
        for (const [name, value] of Object.entries(more)) if (value !== undefined) span.attributes[name] = value;
      },
      updateName: (newName) => (span.name = newName),
      fail: (message) => (span.failure = message),
      end: () => (span.ends += 1),
      traceHeaders: (): TraceHeaders => ({ traceparent: `00-${traceId}-${id}-01` }),
    };
    spans.push(span);
    return span;
  };
  const within = <T>(span: TraceSpan, work: () => T): T =>
    storage.run([...(storage.getStore() ?? []), span as RecordedSpan], work);
  const startChild = (name: string, attributes: TraceAttributes, links?: TraceSpan[]) => {
    const parent = current();
    return parent === undefined ? undefined : make(name, "child", parent, attributes, links);
  };
  return {
    traceId,
    spans,
    current,
    startCall: (name, _header, attributes) => make(name, "call", undefined, attributes),
    startRoot: (name, attributes) => make(name, "root", undefined, attributes),
    startChild,
    within,
    inSpan: inSpanOf(startChild, within),
    bind: (work) => AsyncLocalStorage.bind(work),
    currentCall: () => [...(storage.getStore() ?? [])].reverse().find((span) => span.kind === "call"),
    shutdown: async () => {},
  };
}

// Joining a key's computation through its single flight, in a span when
// traces are on: the computation's own span for the call that starts it, a
// span linked to it for each call that joins it.
import { type TraceSpan, type Tracing, traceAttribute } from "../observability/index.js";
import type { CachePolicy, Compute, Computed } from "./cache-types.js";
import type { SingleFlight } from "./single-flight.js";

/** Joins `key`'s running computation, or starts one with `start`; `signal` stops this caller's wait. */
export type JoinComputation<V> = (
  key: string,
  policy: CachePolicy,
  start: Compute<V>,
  signal?: AbortSignal,
) => Promise<Computed<V>>;

/** `flights.join`, traced when `tracing` is given. */
export function createComputationJoin<V>(
  flights: SingleFlight<Computed<V>>,
  tracing: Tracing | undefined,
): JoinComputation<V> {
  if (tracing === undefined) return (key, _policy, start, signal) => flights.join(key, start, signal);
  /** The span of each running computation, which the calls that join it link to. */
  const computations = new Map<string, TraceSpan | undefined>();
  return (key, policy, start, signal) => {
    const endpoint = { [traceAttribute.endpoint]: policy.label };
    if (computations.has(key)) {
      const running = computations.get(key);
      const links = running === undefined ? [] : [running];
      const joined = { ...endpoint, [traceAttribute.joined]: true };
      return tracing.inSpan("join computation", joined, () => flights.join(key, start, signal), links);
    }
    const traced = (abort: AbortSignal) =>
      tracing.inSpan("computation", endpoint, (span) => {
        computations.set(key, span);
        return start(abort).finally(() => computations.delete(key));
      });
    return flights.join(key, traced, signal);
  };
}

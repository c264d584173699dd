// A bounded memo of a function of a header value: its answers kept for the
// first `max` distinct values. Callers send few (their client library's
// content type, accept and accepted encodings), so reading them is mostly a
// lookup. Values past those are read each time, so many distinct values from
// one caller cost it speed, never memory.

/** `read`, its answer (undefined and null too) kept for each of the first `max` values it is asked. */
export function createBoundedMemo<T>(read: (value: string) => T, max: number): (value: string) => T {
  const known = new Map<string, { answer: T }>();
  return (value) => {
    const hit = known.get(value);
    if (hit !== undefined) return hit.answer;
    const answer = read(value);
    if (known.size < max) known.set(value, { answer });
    return answer;
  };
}

// Walks an error's `cause` chain: the wrappers libraries put around a
// failure keep the part that says what it was further down.

/** `error`, its `cause`, the cause's cause and so on: at most 8 deep, never a cycle. */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let e = error;
  while (e !== undefined && e !== null && chain.length < 8 && !chain.includes(e)) {
    chain.push(e);
    e = typeof e === "object" ? (e as { cause?: unknown }).cause : undefined;
  }
  return chain;
}

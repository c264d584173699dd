// Log fields as plain JSON values: Error values with their stack and cause
// chain wherever they sit, cycles and deep nesting cut, bigints as text.

/**
 * An object this many levels below the top of a line, or more, is written as
 * "[truncated]": a field's value is one level down, its error's cause two.
 */
const maxLogDepth = 10;

/**
 * `value` as JSON.stringify can write it: an Error becomes `{ name, message,
 * code?, stack, cause? }` with its cause written the same way (an Error or
 * any other value); an object that contains itself is written "[circular]"
 * where it recurs. Values with their own `toJSON` (Date, Buffer) are kept.
 */
export function logValue(value: unknown, depth = 0, ancestors: object[] = []): unknown {
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object" || value === null) return value;
  if (ancestors.includes(value)) return "[circular]";
  if (depth >= maxLogDepth) return "[truncated]";
  if (!(value instanceof Error) && typeof (value as { toJSON?: unknown }).toJSON === "function") return value;
  ancestors.push(value);
  try {
    if (value instanceof Error) return errorValue(value, depth, ancestors);
    if (Array.isArray(value)) return value.map((item) => logValue(item, depth + 1, ancestors));
    const written: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) written[key] = logValue(item, depth + 1, ancestors);
    return written;
  } finally {
    ancestors.pop();
  }
}

function errorValue(error: Error, depth: number, ancestors: object[]): Record<string, unknown> {
  const written: Record<string, unknown> = { name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) written.code = logValue(code, depth + 1, ancestors);
  written.stack = error.stack;
  if (error.cause !== undefined) written.cause = logValue(error.cause, depth + 1, ancestors);
  return written;
}

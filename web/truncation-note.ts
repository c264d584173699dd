// The line under the results when the answer says rows were left out
// (docs/endpoints.md, Truncation): "first 1,000 of at least 1,534 rows",
// from the answer's `truncated` and `rows_before_limit_at_least`, the same
// on every transport. Written with textContent only.

/** `1534` as `1,534`, the same in every browser locale. */
const count = (n: number) => n.toLocaleString("en-US");

/**
 * The note for `shown` rows of an answer that says `truncated` with at least
 * `rowsAtLeast` rows before the cut; `undefined` when nothing was left out.
 * A count below the rows shown (none given) is read as the rows shown.
 */
export function truncationText(
  shown: number,
  truncated: boolean | undefined,
  rowsAtLeast?: number,
): string | undefined {
  if (truncated !== true) return undefined;
  const atLeast = Math.max(shown, rowsAtLeast ?? 0);
  return `first ${count(shown)} of at least ${count(atLeast)} rows`;
}

/** Shows `text` in `element`, or hides it when there is none. */
export function showTruncation(element: HTMLElement, text: string | undefined): void {
  element.textContent = text ?? "";
  element.hidden = text === undefined;
}

// The rows of a result as a <table>: one column per field, every value set
// as text (textContent), never as markup, whatever the logs hold. Objects
// and arrays (the `metadata` of logs.all) open on demand: their JSON is
// written into the page only when the reader opens them.
import type { Row } from "./calls.js";

/** Replaces the contents of `container` with a table of `rows`, captioned `caption`. */
export function showTable(container: HTMLElement, rows: readonly Row[], caption: string): void {
  container.replaceChildren();
  const table = document.createElement("table");
  const title = document.createElement("caption");
  title.textContent = caption;
  table.append(title);
  const columns = columnsOf(rows);
  const head = table.createTHead().insertRow();
  for (const column of columns) {
    const cell = document.createElement("th");
    cell.scope = "col";
    cell.textContent = column;
    head.append(cell);
  }
  const body = table.createTBody();
  for (const row of rows) {
    const line = body.insertRow();
    for (const column of columns) {
      const cell = line.insertCell();
      const value = row[column];
      if (value !== null && typeof value === "object") cell.append(openOnDemand(column, value));
      else {
        cell.textContent = value === undefined || value === null ? "" : String(value);
        if (typeof value === "number") cell.className = "number";
      }
    }
  }
  container.append(table);
}

/** The fields of the rows, in the order they first appear. */
function columnsOf(rows: readonly Row[]): string[] {
  const columns = new Set<string>();
  for (const row of rows) for (const name of Object.keys(row)) columns.add(name);
  return [...columns];
}

/** A closed <details> whose JSON is made the first time it opens. */
function openOnDemand(name: string, value: object): HTMLDetailsElement {
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = Array.isArray(value) ? `${name} (${value.length})` : name;
  details.append(summary);
  details.addEventListener(
    "toggle",
    () => {
      const pre = document.createElement("pre");
      pre.textContent = JSON.stringify(value, null, 2);
      details.append(pre);
    },
    { once: true },
  );
  return details;
}

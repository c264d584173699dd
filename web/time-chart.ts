// A chart of a result that has a `timestamp` and numeric columns: time on
// the x axis, one series per numeric column, drawn by uPlot on a canvas
// (small, fast with thousands of points, no dependencies; docs/explorer.md).
// The chart is an image to assistive technology, named after the saved query.
import uPlot from "uplot";
import type { Row } from "./calls.js";

const palette = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777"];

/** The numeric columns of `rows` when they can be drawn over time, else none. */
export function chartableColumns(rows: readonly Row[]): string[] {
  const first = rows[0];
  if (first === undefined || typeof first.timestamp !== "string") return [];
  return Object.keys(first).filter((name) => name !== "timestamp" && typeof first[name] === "number");
}

let current: uPlot | undefined;

/** Replaces the contents of `container` with the chart of `rows` for `endpoint`, or nothing when they do not chart. */
export function showChart(container: HTMLElement, rows: readonly Row[], endpoint: string): void {
  current?.destroy();
  current = undefined;
  container.replaceChildren();
  const columns = chartableColumns(rows);
  if (columns.length === 0) return;
  // Rows come newest first from some queries: uPlot wants x ascending.
  const points = rows
    .map((row) => ({ x: Date.parse(String(row.timestamp)) / 1000, row }))
    .filter((point) => Number.isFinite(point.x))
    .sort((a, b) => a.x - b.x);
  const data: uPlot.AlignedData = [
    points.map((p) => p.x),
    ...columns.map((column) =>
      points.map((p) => (typeof p.row[column] === "number" ? (p.row[column] as number) : null)),
    ),
  ];
  const figure = document.createElement("div");
  figure.className = "chart";
  figure.setAttribute("role", "img");
  figure.setAttribute(
    "aria-label",
    `${endpoint}: ${columns.join(", ")} over time, ${points.length} points (the table below holds the values)`,
  );
  container.append(figure);
  current = new uPlot(
    {
      width: Math.max(320, container.clientWidth || 800),
      height: 300,
      scales: { x: { time: true } },
      // UTC, as the rows' timestamps are.
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC"),
      series: [
        { label: "time (UTC)" },
        ...columns.map((column, i) => ({
          label: column,
          stroke: palette[i % palette.length],
          width: 1.5,
          points: { show: points.length <= 60 },
        })),
      ],
    },
    data,
    figure,
  );
}

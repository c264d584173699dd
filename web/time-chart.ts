// A chart of a result that has a `timestamp` and numeric columns: time on
// the x axis, one series per numeric column, drawn by uPlot on a canvas
// (small, fast with thousands of points, no dependencies; docs/explorer.md).
// The chart is an image to assistive technology, named after the saved query.
// Durations and counts run to different sizes, so when a result has both,
// counts get their own scale and a right-hand axis instead of lying along zero.
import uPlot from "uplot";
import type { Row } from "./calls.js";

const palette = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777"];

/** The numeric columns of `rows` when they can be drawn over time, else none. */
export function chartableColumns(rows: readonly Row[]): string[] {
  const first = rows[0];
  if (first === undefined || typeof first.timestamp !== "string") return [];
  return Object.keys(first).filter((name) => name !== "timestamp" && typeof first[name] === "number");
}

/** True for a column that holds a duration (`avg_execution_time`, `p95_duration_ms`); the rest are counted. */
export function isDuration(column: string): boolean {
  return /(_time|_ms|duration)$/.test(column);
}

let current: uPlot | undefined;

/** Replaces the contents of `container` with the chart of `rows` for `endpoint`, or nothing when they do not chart. */
export function showChart(container: HTMLElement, rows: readonly Row[], endpoint: string): void {
  current?.destroy();
  current = undefined;
  container.replaceChildren();
  const columns = chartableColumns(rows);
  if (columns.length === 0) return;
  // Rows come newest first from some queries: uPlot wants x ascending, each x once.
  const points = rows
    .map((row) => ({ x: Date.parse(String(row.timestamp)) / 1000, row }))
    .filter((point) => Number.isFinite(point.x))
    .sort((a, b) => a.x - b.x);
  const xs = [...new Set(points.map((p) => p.x))];
  // Rows of several saved queries per time (service.call-stats): one series of calls per saved query.
  const keys = [...new Set(points.map((p) => p.row.endpoint))];
  const bySeries =
    keys.length > 1 && keys.every((key) => typeof key === "string") && columns.includes("calls")
      ? keys.map((key) => ({ label: `calls of ${String(key)}`, column: "calls", only: key }))
      : columns.map((column) => ({ label: column, column, only: undefined as unknown }));
  const data: uPlot.AlignedData = [
    xs,
    ...bySeries.map(({ column, only }) => {
      const values = new Map(
        points.filter((p) => only === undefined || p.row.endpoint === only).map((p) => [p.x, p.row[column]]),
      );
      return xs.map((x) => {
        const value = values.get(x);
        return typeof value === "number" ? value : null;
      });
    }),
  ];
  const durations = bySeries.filter(({ column }) => isDuration(column));
  const counted = bySeries.filter(({ column }) => !isDuration(column));
  const twoAxes = durations.length > 0 && counted.length > 0;
  const named = (series: typeof bySeries) => series.map(({ label }) => label).join(", ");
  const figure = document.createElement("div");
  figure.className = "chart";
  figure.setAttribute("role", "img");
  figure.setAttribute(
    "aria-label",
    `${endpoint}: ${twoAxes ? `${named(durations)} (ms, left axis), ${named(counted)} (right axis)` : named(bySeries)} over time, ${xs.length} points (the table below holds the values)`,
  );
  container.append(figure);
  current = new uPlot(
    {
      width: Math.max(320, container.clientWidth || 800),
      height: 300,
      scales: twoAxes ? { x: { time: true }, y: {}, count: {} } : { x: { time: true } },
      axes: twoAxes
        ? [{}, { scale: "y", label: "ms" }, { scale: "count", side: 1, label: "count", grid: { show: false } }]
        : undefined,
      // UTC, as the rows' timestamps are.
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC"),
      series: [
        { label: "time (UTC)" },
        ...bySeries.map(({ label, column }, i) => ({
          label,
          scale: twoAxes && !isDuration(column) ? "count" : "y",
          stroke: palette[i % palette.length],
          width: 1.5,
          points: { show: xs.length <= 60 },
        })),
      ],
    },
    data,
    figure,
  );
}

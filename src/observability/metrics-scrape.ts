// The Prometheus text of /metrics, rendered at most once per `reuseMs` and
// shared by every scrape meanwhile: rendering reads /proc, sums histograms
// and builds a string of every series, so a flood of scrapes must not render
// once each.
import type { Registry } from "prom-client";

export interface MetricsScrapeOptions {
  registry: Registry;
  /** How long a rendered text is served again. 0 renders for every scrape. Default 1000 ms. */
  reuseMs?: number;
  /** Milliseconds from any fixed start. Default: `performance.now`. */
  now?: () => number;
}

/** The current scrape text; concurrent calls share one rendering. A rendering that fails is not kept. */
export type MetricsScrape = () => Promise<Buffer>;

export function createMetricsScrape(options: MetricsScrapeOptions): MetricsScrape {
  const reuseMs = options.reuseMs ?? 1000;
  const now = options.now ?? (() => performance.now());
  let last: { text: Promise<Buffer>; at: number } | undefined;
  return () => {
    const at = now();
    if (last !== undefined && at - last.at < reuseMs) return last.text;
    const rendering = { text: options.registry.metrics().then((text) => Buffer.from(text)), at };
    last = rendering;
    // A failure is answered to the scrapes that shared it; the next scrape renders again.
    rendering.text.catch(() => {
      if (last === rendering) last = undefined;
    });
    return rendering.text;
  };
}

// Counters and histograms for metrics counted on every call. prom-client's
// own metrics hash a call's labels on each inc and observe; here a label set
// is resolved once to a series of plain numbers, so counting is an addition.
// A prom-client Registry reads them at scrape time through its metric
// interface (name, help, type, get), so the exposition is prom-client's own.
import type { Registry } from "prom-client";

type Labels<L extends string> = Record<L, string>;

/** One value as prom-client's registry writes it out. */
interface MetricValue {
  metricName?: string;
  labels: Readonly<Record<string, string | number>>;
  value: number;
}

/** What prom-client's registry reads from a metric at scrape time. */
interface MetricSnapshot {
  name: string;
  help: string;
  type: "counter" | "histogram";
  aggregator: "sum";
  values: MetricValue[];
}

export class CounterSeries {
  value = 0;
  constructor(readonly labels: Readonly<Record<string, string>>) {}
  inc(by = 1): void {
    this.value += by;
  }
}

export class HistogramSeries {
  /** Observations per bucket, not cumulative; the last is above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    this.counts[i]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

/** What a metric is made with, as prom-client's Counter and Histogram take it. */
export interface SeriesConfiguration<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registers: readonly Registry[];
}

abstract class SeriesMetric<L extends string, S extends { labels: Readonly<Record<string, string>> }> {
  readonly aggregator = "sum";
  private readonly byKey = new Map<string, S>();

  readonly name: string;
  readonly help: string;
  private readonly labelNames: readonly L[];

  constructor(configuration: SeriesConfiguration<L>) {
    this.name = configuration.name;
    this.help = configuration.help;
    this.labelNames = configuration.labelNames;
    for (const registry of configuration.registers) registry.registerMetric(this as never);
  }

  /** The series of `labels`, made on first use. Keep it: this lookup is the slow part. */
  series(labels: Labels<L>): S {
    const key = this.labelNames.map((name) => labels[name]).join("\0");
    let series = this.byKey.get(key);
    if (series === undefined) {
      // Labels in declared order, as they are written out.
      series = this.create(Object.fromEntries(this.labelNames.map((name) => [name, labels[name]])));
      this.byKey.set(key, series);
    }
    return series;
  }

  reset(): void {
    this.byKey.clear();
  }

  protected all(): S[] {
    return [...this.byKey.values()];
  }

  protected abstract create(labels: Record<string, string>): S;
}

export class SeriesCounter<L extends string> extends SeriesMetric<L, CounterSeries> {
  readonly type = "counter";

  protected create(labels: Record<string, string>): CounterSeries {
    return new CounterSeries(labels);
  }

  async get(): Promise<MetricSnapshot> {
    const values = this.all().map((series) => ({ labels: series.labels, value: series.value }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

export class SeriesHistogram<L extends string> extends SeriesMetric<L, HistogramSeries> {
  readonly type = "histogram";

  private readonly buckets: readonly number[];

  constructor(configuration: SeriesConfiguration<L> & { buckets: readonly number[] }) {
    super(configuration);
    this.buckets = configuration.buckets;
  }

  protected create(labels: Record<string, string>): HistogramSeries {
    return new HistogramSeries(labels, this.buckets);
  }

  async get(): Promise<MetricSnapshot> {
    const values: MetricValue[] = [];
    for (const series of this.all()) {
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += series.counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound, ...series.labels }, value: cumulative });
      });
      values.push(
        { metricName: `${this.name}_bucket`, labels: { le: "+Inf", ...series.labels }, value: series.count },
        { metricName: `${this.name}_sum`, labels: series.labels, value: series.sum },
        { metricName: `${this.name}_count`, labels: series.labels, value: series.count },
      );
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

// The call log's latency histogram: logarithmic buckets, 16 per doubling,
// from 2^-10 ms (about 1 µs) to 2^22 ms (about 70 minutes). Each bucket keeps
// its count and the sum of its durations, so that its mean stands for its
// calls: a percentile read from it is within one bucket's width (4.4%) of the
// exact one, and exact when each bucket holds calls of one duration.

/** Buckets per doubling of the duration. */
export const latencyBucketsPerOctave = 16;

/** log2 of the upper bound of bucket 0, in ms. */
const smallestExponent = -10;

/** The last bucket, which holds every duration from 2^22 ms on. */
export const lastLatencyBucket = (22 - smallestExponent) * latencyBucketsPerOctave;

/** The bucket of a duration of `ms` milliseconds: 0 for 2^-10 ms and less (and for NaN), the last one from 2^22 ms. */
export function latencyBucketOf(ms: number): number {
  if (!(ms > 2 ** smallestExponent)) return 0;
  const index = Math.floor((Math.log2(ms) - smallestExponent) * latencyBucketsPerOctave);
  return Math.min(index, lastLatencyBucket);
}

/** The sparse histogram of one aggregate: parallel arrays, one element per bucket used, in the order first used. */
export interface LatencyHistogram {
  latencyBuckets: number[];
  latencyCounts: number[];
  latencySums: number[];
}

/** Adds one call of `duration` milliseconds to `histogram`; allocates only when a bucket is first used. */
export function addLatency(histogram: LatencyHistogram, duration: number): void {
  // A negative, infinite or missing duration counts as 0 rather than spoil the sums.
  const ms = duration > 0 && duration < Number.MAX_VALUE ? duration : 0;
  const bucket = latencyBucketOf(ms);
  const buckets = histogram.latencyBuckets;
  for (let i = 0; i < buckets.length; i++) {
    if (buckets[i] === bucket) {
      histogram.latencyCounts[i]! += 1;
      histogram.latencySums[i]! += ms;
      return;
    }
  }
  buckets.push(bucket);
  histogram.latencyCounts.push(1);
  histogram.latencySums.push(ms);
}

// The rounds of a cache-hit row read as one figure: the median of the
// rounds' CPU ratios (the bare server's CPU µs a call over the service's),
// the interquartile range around it, and whether the goal can be judged.
// CPU a call is the judged figure: on this VM it is far steadier than calls
// a second, which move with how the hypervisor schedules the load.
import { median } from "./report.js";

/** The widest half of the interquartile range of a row's rounds for its goal to be judged. */
export const judgedSpread = 0.1;

/** Room for binary fractions: a spread of exactly `judgedSpread` is judged. */
const epsilon = 1e-9;

/** Each round's ratio: the bare server's CPU µs a call over `side`'s, in the same round. */
export function roundRatios<Side extends string>(
  rounds: Record<Side | "bare", { cpuUsPerCall: number }>[],
  side: Side,
): number[] {
  return rounds.map((round) => round.bare.cpuUsPerCall / round[side].cpuUsPerCall);
}

/** The quartile `q` (0 to 1) of `values`, linearly between the two nearest; 0 for none. */
export function quartile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low]! + (sorted[Math.ceil(at)]! - sorted[low]!) * (at - low);
}

/** Half the interquartile range of `values`: one outlying round does not widen it. */
export function spreadAround(values: number[]): number {
  return (quartile(values, 0.75) - quartile(values, 0.25)) / 2;
}

/** What a row's rounds say about its goal. */
export interface Verdict {
  /** The median of the rounds' ratios. */
  ratio: number;
  /** Half the interquartile range of the rounds' ratios. */
  spread: number;
  /** "yes" or "no" against the goal, or "not judged" and why. */
  met: string;
}

/**
 * The verdict of rounds whose ratios were `ratios`, against a goal of at
 * least `goal`: judged only on pinned rounds whose interquartile range is
 * no wider than ±`judgedSpread`, since past that the machine, not the code,
 * decides which side of the goal the median lands.
 */
export function judgeRounds(ratios: number[], goal: number, pinned: boolean): Verdict {
  if (ratios.length === 0) return { ratio: Number.NaN, spread: Number.NaN, met: "not judged (no rounds)" };
  const ratio = median(ratios);
  const spread = spreadAround(ratios);
  return { ratio, spread, met: metOf(ratio, spread, goal, pinned) };
}

/** "yes", "no", or "not judged" and why. */
function metOf(ratio: number, spread: number, goal: number, pinned: boolean): string {
  if (!pinned) return "not judged (unpinned)";
  if (spread > judgedSpread + epsilon) return `not judged (interquartile range over ±${judgedSpread})`;
  return ratio >= goal ? "yes" : "no";
}

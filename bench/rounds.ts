// The rounds of a cache-hit row read as one figure: the median of the
// rounds' ratios, how far the rounds spread around it, and whether the goal
// can be judged on them at all.
import { median } from "./report.js";

/** The widest a row's rounds may spread around their median (either side) for its goal to be judged. */
export const judgedSpread = 0.1;

/** Room for binary fractions: a spread of exactly `judgedSpread` is judged. */
const epsilon = 1e-9;

/** Each round's ratio: the service's calls a second over its bare server's, measured beside it. */
export function roundRatios(rounds: { service: { rps: number }; bare: { rps: number } }[]): number[] {
  return rounds.map((round) => round.service.rps / round.bare.rps);
}

/** The farthest any of `values` lies from their median; 0 for none. */
export function spreadAround(values: number[]): number {
  const middle = median(values);
  return values.reduce((widest, value) => Math.max(widest, Math.abs(value - middle)), 0);
}

/** What a row's rounds say about its goal. */
export interface Verdict {
  /** The median of the rounds' ratios. */
  ratio: number;
  /** The farthest a round's ratio lies from `ratio`. */
  spread: number;
  /** "yes" or "no" against the goal, or "not judged" and why. */
  met: string;
}

/**
 * The verdict of rounds whose ratios were `ratios`, against a goal of at
 * least `goal`: judged only on pinned rounds spread no wider than
 * ±`judgedSpread` around their median, since past that the machine, not
 * the code, decides which side of the goal the median lands.
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
  if (spread > judgedSpread + epsilon) return `not judged (spread over ±${judgedSpread})`;
  return ratio >= goal ? "yes" : "no";
}

// The time source every time-dependent part takes, so tests can pin `now`.

/** Returns the current time in milliseconds since the epoch. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** A clock standing still at `at` until moved, for tests. */
export function fixedClock(at: Date | number): Clock & { set(to: Date | number): void; advance(ms: number): void } {
  let current = typeof at === "number" ? at : at.getTime();
  const clock = () => current;
  clock.set = (to: Date | number) => {
    current = typeof to === "number" ? to : to.getTime();
  };
  clock.advance = (ms: number) => {
    current += ms;
  };
  return clock;
}

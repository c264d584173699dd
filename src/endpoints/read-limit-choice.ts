// Which read limits a call runs under: of the saved query's, the caller's
// credential's and the service's defaults, the smallest of each kind, named
// by whose it is; 0 or absent is no limit.
import type { ReadLimitName, ReadLimits, ReadLimitSource, ReadLimitValues } from "../executor/index.js";

/** The limits of each source of a call; any may be absent. */
export interface ReadLimitSources {
  savedQuery?: ReadLimitValues;
  credential?: ReadLimitValues;
  defaults?: ReadLimitValues;
}

/** The sources, in the order a tie is named in. */
const sources: readonly [keyof ReadLimitSources, ReadLimitSource][] = [
  ["savedQuery", "saved query"],
  ["credential", "credential"],
  ["defaults", "default"],
];

const fields: readonly [ReadLimitName, keyof ReadLimitValues][] = [
  ["max_rows_to_read", "maxRowsToRead"],
  ["max_bytes_to_read", "maxBytesToRead"],
];

/** The smallest limit of each kind among `given`; undefined when none applies. */
export function chooseReadLimits(given: ReadLimitSources): ReadLimits | undefined {
  let chosen: ReadLimits | undefined;
  for (const [name, field] of fields) {
    for (const [source, label] of sources) {
      const value = given[source]?.[field] ?? 0;
      if (value > 0 && (chosen?.[name] === undefined || value < chosen[name].value)) {
        chosen ??= {};
        chosen[name] = { value, source: label };
      }
    }
  }
  return chosen;
}

/** Whether the credential's limits are among `limits`: a result computed under them is the credential's alone. */
export function setByCredential(limits: ReadLimits | undefined): boolean {
  return limits !== undefined && fields.some(([name]) => limits[name]?.source === "credential");
}

// The defaults of the bounds createApp fills in itself (the others are its
// parts' own), apart from it so that the configuration table reads them
// without loading the whole app.

import { defaultAdmission } from "../executor/admission.js";
import type { WarehouseCapabilities } from "../warehouse/capabilities.js";

/**
 * The largest Connect, gRPC or gRPC-Web request message, one key's warehouse
 * queries running and waiting, and how long past its lifetime a cached
 * result may answer a warehouse outage.
 */
export const defaultAppLimits = {
  maxBodyBytes: 64 * 1024,
  warehouseCallsPerKey: 16,
  staleIfErrorMs: 3600 * 1000,
} as const;

/** Warehouse queries running at once: 1 on a warehouse that runs one at a time (warehouse/capabilities.ts), else admission's default. */
export function defaultConcurrency(capabilities: WarehouseCapabilities): number {
  return capabilities.runsOneQueryAtATime ? 1 : defaultAdmission.maxConcurrent;
}

// The defaults of the bounds createApp fills in itself (the others are its
// parts' own), apart from it so that the configuration table reads them
// without loading the whole app.

/**
 * The largest Connect, gRPC or gRPC-Web request message, one key's warehouse
 * queries running and waiting, and the queries the embedded engine runs at
 * once (it runs one saved query at a time: more turns would only move the
 * queue into chDB, past the fair order and the bounds).
 */
export const defaultAppLimits = {
  maxBodyBytes: 64 * 1024,
  warehouseCallsPerKey: 16,
  embeddedConcurrency: 1,
} as const;

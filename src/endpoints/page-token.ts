// Page tokens (docs/endpoints.md, Paging): the (timestamp, id) of a page's
// last row, sealed with an HMAC-SHA256 over the call's other parameters and
// the caller, so that a token only continues the call and caller it was made
// for. Opaque base64url: 8 bytes of microseconds, the id, then the 32-byte MAC.
import { type BinaryLike, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Where a page ends: its last row's time and id; the next page holds the rows before it. */
export interface PageCursor {
  /** Microseconds since the Unix epoch. */
  micros: bigint;
  id: string;
}

/** What a token is bound to besides its cursor. */
export interface PageBinding {
  /** The call's other parameters, normalised (pageParametersOf). */
  parameters: string;
  /** The caller's credential id; "" for none. */
  caller: string;
}

export interface PageTokens {
  /** A token for the page after `cursor`, for this binding only. */
  seal(cursor: PageCursor, binding: PageBinding): string;
  /** The cursor of `token` if it was sealed for `binding` by these tokens and is unaltered; else undefined. */
  open(token: string, binding: PageBinding): PageCursor | undefined;
}

/** The keys tokens are sealed and opened with (PAGE_TOKEN_SECRET, PAGE_TOKEN_PREVIOUS_SECRET). */
export interface PageTokenSecrets {
  /** Seals every new token, and opens them. */
  secret: BinaryLike;
  /** Opens tokens sealed before a rotation to `secret`; seals none. Default: none. */
  previousSecret?: BinaryLike;
}

const macBytes = 32;
const microsBytes = 8;

/** The times a cursor may hold: DateTime64(6)'s, 1900-01-01 to 2299-12-31 (rows hold no other). */
const earliestMicros = BigInt(Date.UTC(1900, 0, 1)) * 1000n;
const latestMicros = BigInt(Date.UTC(2300, 0, 1)) * 1000n - 1n;

/** The placeholders through which a page token's cursor reaches the SQL. */
export const cursorPlaceholders = ["cursor_timestamp", "cursor_id"] as const;

/**
 * Seals tokens with `secrets.secret` and opens those of either secret.
 * Default: 32 random bytes, so that tokens last as long as the process.
 */
export function createPageTokens(secrets: PageTokenSecrets = { secret: randomBytes(32) }): PageTokens {
  const keys = secrets.previousSecret === undefined ? [secrets.secret] : [secrets.secret, secrets.previousSecret];
  const mac = (key: BinaryLike, cursor: PageCursor, binding: PageBinding) => {
    const hmac = createHmac("sha256", key);
    // Each field with its length first, so that no two bindings write the same bytes.
    for (const field of [binding.parameters, binding.caller, cursor.id]) {
      const bytes = Buffer.from(field, "utf8");
      hmac.update(lengthOf(bytes.length)).update(bytes);
    }
    return hmac.update(microsOf(cursor.micros)).digest();
  };
  return {
    seal(cursor, binding) {
      const sealed = mac(secrets.secret, cursor, binding);
      return Buffer.concat([microsOf(cursor.micros), Buffer.from(cursor.id, "utf8"), sealed]).toString("base64url");
    },
    open(token, binding) {
      const read = readPageToken(token);
      if (read === undefined) return undefined;
      return keys.some((key) => timingSafeEqual(read.mac, mac(key, read.cursor, binding))) ? read.cursor : undefined;
    },
  };
}

/**
 * The cursor and MAC a token holds if it has a token's shape (no check of its
 * MAC): canonical base64url, an id of UTF-8, a time a row can have; else undefined.
 */
export function readPageToken(token: string): { cursor: PageCursor; mac: Buffer } | undefined {
  const bytes = Buffer.from(token, "base64url");
  // Node skips characters outside the alphabet: only the canonical text of the bytes is a token.
  if (bytes.length < microsBytes + macBytes || bytes.toString("base64url") !== token) return undefined;
  const idBytes = bytes.subarray(microsBytes, bytes.length - macBytes);
  const id = idBytes.toString("utf8");
  if (!Buffer.from(id, "utf8").equals(idBytes)) return undefined;
  // Read before the MAC is checked: a forged time out of range must be a bad token, not a failed conversion.
  const micros = bytes.readBigInt64BE(0);
  if (micros < earliestMicros || micros > latestMicros) return undefined;
  return { cursor: { micros, id }, mac: bytes.subarray(bytes.length - macBytes) };
}

/** A binding's parameters: the call's normalised parameters (the page token is not among them), in name order. */
export function pageParametersOf(normalized: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.entries(normalized).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function lengthOf(length: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(length);
  return bytes;
}

function microsOf(micros: bigint): Buffer {
  const bytes = Buffer.alloc(microsBytes);
  bytes.writeBigInt64BE(micros);
  return bytes;
}

// The five-byte envelope of the Connect streaming, gRPC and gRPC-Web wire
// formats: a flags byte, a big-endian length, then the bytes.

/** Flags of a message compressed with the call's encoding. */
export const compressedFlag = 0b1;
/** Flags of Connect's end-of-stream message. */
export const endStreamFlag = 0b10;
/** Flags of gRPC-Web's trailer frame. */
export const trailerFlag = 0x80;

/** `bytes` in an envelope flagged `flags`. */
export function frame(flags: number, bytes: Uint8Array): Buffer {
  const framed = Buffer.allocUnsafe(5 + bytes.length);
  framed.writeUInt8(flags, 0);
  framed.writeUInt32BE(bytes.length, 1);
  framed.set(bytes, 5);
  return framed;
}

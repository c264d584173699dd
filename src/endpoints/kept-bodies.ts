// The bodies made from one response and kept with it, under names the
// transport that makes them chooses: endpoints/ stores them and never reads
// a name, so a new kind of body needs no change here. Each is counted with
// the memory it keeps alive, which exactBuffer makes its own length.

/**
 * A kept body's name: opaque here, chosen by the transport that made the
 * body, which keeps its names apart from every other transport's.
 */
export type BodyName = string;

/**
 * A response's kept bodies. A class rather than closures: every cached entry
 * holds one, and its methods are shared, so an entry costs one small object.
 */
export class KeptBodies {
  /** Made with the first body: most results are read in one form only. */
  #bodies: Map<BodyName, Buffer> | undefined;

  /** The body kept under `name`, or undefined. */
  get(name: BodyName): Buffer | undefined {
    return this.#bodies?.get(name);
  }

  /**
   * Keeps `body` under `name`; answers the change in bytes kept (what it
   * replaced counted off): the memory each body keeps alive, its name and
   * its place in the map.
   */
  keep(name: BodyName, body: Buffer): number {
    const previous = this.#bodies?.get(name);
    const made = this.#bodies === undefined ? keptBodiesOverheadBytes : 0;
    this.#bodies ??= new Map();
    this.#bodies.set(name, body);
    return made + retainedBytes(name, body) - (previous === undefined ? 0 : retainedBytes(name, previous));
  }
}

/** What the map of kept bodies costs once made. */
export const keptBodiesOverheadBytes = 256;

/**
 * What a kept body costs besides the memory it keeps alive: its Buffer and
 * ArrayBuffer objects, the backing store's record, its slot, and the
 * validator the transport keeps for its form.
 */
export const keptBodyOverheadBytes = 320;

/** The memory `body`, kept under `name`, keeps alive: the whole ArrayBuffer it views, not only its length. */
const retainedBytes = (name: BodyName, body: Buffer) =>
  body.buffer.byteLength + 2 * name.length + keptBodyOverheadBytes;

/**
 * `body` in a buffer of its own of exactly its length: a view (what
 * gzipSync and brotliCompressSync answer, or Buffer.from's shared pool)
 * keeps its whole, larger ArrayBuffer alive. Copied into a buffer outside
 * the pool (allocUnsafeSlow) unless it already owns one of its size.
 */
export function exactBuffer(body: Buffer): Buffer {
  if (body.byteOffset === 0 && body.buffer.byteLength === body.length) return body;
  const own = Buffer.allocUnsafeSlow(body.length);
  body.copy(own);
  return own;
}

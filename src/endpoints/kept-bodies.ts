// The bodies made from one response and kept with it, under names the
// transport that makes them chooses: endpoints/ stores them and never reads
// a name, so a new kind of body needs no change here.

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

  /** Keeps `body` under `name`; answers the change in bytes kept (what it replaced counted off). */
  keep(name: BodyName, body: Buffer): number {
    this.#bodies ??= new Map();
    const previous = this.#bodies.get(name);
    this.#bodies.set(name, body);
    return body.length - (previous?.length ?? 0);
  }
}

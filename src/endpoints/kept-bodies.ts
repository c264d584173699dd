// The bodies made from one response and kept with it, by name: a format,
// plus its content coding when compressed ("csv", "json+gzip", "ndjson+br").
// A new kind of body (a message's binary encoding, say) is a new name.

/**
 * How a body writes the response: GET's formats, and the response message's
 * RPC encodings, binary or proto3 JSON, bare (Connect) or in a gRPC envelope
 * (gRPC, gRPC-Web).
 */
export type BodyFormatName = "json" | "csv" | "ndjson" | "message" | "message-json" | "envelope" | "envelope-json";
/** How a body is compressed. */
export type ContentCodingName = "gzip" | "zstd" | "br";
/** A kept body's name: its format, and its coding unless it is not compressed. */
export type BodyName = BodyFormatName | `${BodyFormatName}+${ContentCodingName}`;

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

// The bodies made from one response and kept with it, by name: a format,
// plus its content coding when compressed ("csv", "json+gzip", "ndjson+br").
// A new kind of body (a message's binary encoding, say) is a new name.

/** How a body writes the response. */
export type BodyFormatName = "json" | "csv" | "ndjson";
/** How a body is compressed. */
export type ContentCodingName = "gzip" | "zstd" | "br";
/** A kept body's name: its format, and its coding unless it is not compressed. */
export type BodyName = BodyFormatName | `${BodyFormatName}+${ContentCodingName}`;

export interface KeptBodies {
  /** The body kept under `name`, or undefined. */
  get(name: BodyName): Buffer | undefined;
  /** Keeps `body` under `name`; answers the change in bytes kept (what it replaced counted off). */
  keep(name: BodyName, body: Buffer): number;
}

/** An empty set of kept bodies; the map behind it is made with the first one. */
export function createKeptBodies(): KeptBodies {
  let bodies: Map<BodyName, Buffer> | undefined;
  return {
    get: (name) => bodies?.get(name),
    keep(name, body) {
      bodies ??= new Map();
      const previous = bodies.get(name);
      bodies.set(name, body);
      return body.length - (previous?.length ?? 0);
    },
  };
}

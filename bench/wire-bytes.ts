// Bytes on the wire of one GET answer's body per content coding, read with
// node:http (which, unlike fetch, does not decompress).
import { request as httpRequest } from "node:http";

export const codings = ["identity", "gzip", "br"] as const;

/** The body length of `target` when asked with each Accept-Encoding of `codings`; checks the coding answered. */
export async function wireBytes(
  target: string,
  headers: Record<string, string>,
): Promise<Record<(typeof codings)[number], number>> {
  const sizes = {} as Record<(typeof codings)[number], number>;
  for (const coding of codings) {
    sizes[coding] = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(target, { headers: { ...headers, "accept-encoding": coding } }, (response) => {
        let length = 0;
        response.on("data", (chunk: Buffer) => (length += chunk.length));
        response.on("end", () => {
          const answered = response.headers["content-encoding"] ?? "identity";
          if (response.statusCode !== 200 || answered !== coding)
            reject(new Error(`GET ${target} (${coding}) answered ${response.statusCode} ${answered}`));
          else resolve(length);
        });
      });
      req.on("error", reject);
      req.end();
    });
  }
  return sizes;
}

// Compressing a GET body for the content coding the caller accepts: gzip and
// Brotli always, zstd where this Node has it (zlib.zstdCompressSync). The
// work is synchronous and done once per body a cached result keeps.
import * as zlib from "node:zlib";

/** Content codings by number, the server's preference among equals last to first: br, then zstd, then gzip. */
export const encodings = ["identity", "gzip", "zstd", "br"] as const;
export type ContentEncoding = 0 | 1 | 2 | 3;
export const IDENTITY: ContentEncoding = 0;

type ZstdCompress = (body: Buffer) => Buffer;
const zstdCompressSync = (zlib as unknown as { zstdCompressSync?: ZstdCompress }).zstdCompressSync;

/** Whether this Node can write zstd. */
export const zstdAvailable = typeof zstdCompressSync === "function";

export interface ResponseCompressionOptions {
  /** gzip level, 1 (fastest) to 9 (smallest). Default 6. */
  gzipLevel?: number;
  /**
   * Brotli quality, 0 to 11. Default 5: most of the size gain of 11 at a
   * small part of its work, which matters for results that are not cached
   * (logs.all) and are compressed on every call.
   */
  brotliQuality?: number;
}

/** Compresses `body` for `encoding` (1 gzip, 2 zstd, 3 br; 0 returns it as is). */
export type Compressor = (body: Buffer, encoding: ContentEncoding) => Buffer;

export function createCompressor(options: ResponseCompressionOptions = {}): Compressor {
  const gzip = { level: options.gzipLevel ?? 6 };
  const quality = options.brotliQuality ?? 5;
  return (body, encoding) => {
    switch (encoding) {
      case 1:
        return zlib.gzipSync(body, gzip);
      case 2:
        return zstdCompressSync!(body);
      case 3:
        return zlib.brotliCompressSync(body, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
            [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          },
        });
      default:
        return body;
    }
  };
}

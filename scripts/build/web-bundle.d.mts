// Types of web-bundle.mjs, for the TypeScript that calls it (the browser tests, bench/explorer.ts).

/** The files of a built page, as the service serves them. */
export declare const explorerFiles: readonly string[];

/** Builds the explorer page into `outdir`; resolves to the files it was made from, relative to `root`. */
export declare function buildExplorer(root: string, outdir: string): Promise<string[]>;

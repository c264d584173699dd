// The explorer's weight and first render (docs/explorer.md): the page, its
// script and style in gzip and Brotli bytes, and a cold load in Chromium (a
// fresh profile, nothing cached) timed to the first contentful paint and to
// the script having run. A figure for the benchmark table, never a test.
import { existsSync } from "node:fs";
import { launchChromium } from "./chromium.js";
import { temporaryDirectory } from "./temp-directory.js";
import { wireBytes } from "./wire-bytes.js";

export interface ExplorerFigures {
  /** Page, script and style together, gzip and Brotli, as the service sends them. */
  gzipBytes: number;
  brotliBytes: number;
  /** Cold loads: from navigation start to the first contentful paint, and to the page's script having run (median). */
  firstPaintMs: number;
  readyMs: number;
  loads: number;
}

export interface ExplorerBenchOptions {
  /** The service's base address, e.g. `http://127.0.0.1:8080`; its explorer must be on (EXPLORER=1, built). */
  url: string;
  /** Cold loads to take the median of, each in a new browser with a new profile. Default 5. */
  loads?: number;
  /** Default: CHROMIUM_PATH, else /usr/bin/chromium. */
  chromiumPath?: string;
}

/** Measures the explorer of the service at `url`; undefined (with a line on stderr) when no Chromium is found. */
export async function measureExplorer(options: ExplorerBenchOptions): Promise<ExplorerFigures | undefined> {
  const executablePath = options.chromiumPath ?? process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(executablePath)) {
    process.stderr.write(`explorer: skipped, no Chromium at ${executablePath}\n`);
    return undefined;
  }
  let gzipBytes = 0;
  let brotliBytes = 0;
  for (const path of ["/", "/explorer.js", "/explorer.css"]) {
    const sizes = await wireBytes(`${options.url}${path}`, {});
    gzipBytes += sizes.gzip;
    brotliBytes += sizes.br;
  }
  const loads = options.loads ?? 5;
  const paints: number[] = [];
  const readies: number[] = [];
  for (let i = 0; i < loads; i++) {
    const { firstPaintMs, readyMs } = await coldLoad(executablePath, options.url);
    paints.push(firstPaintMs);
    readies.push(readyMs);
  }
  return { gzipBytes, brotliBytes, firstPaintMs: median(paints), readyMs: median(readies), loads };
}

async function coldLoad(executablePath: string, url: string): Promise<{ firstPaintMs: number; readyMs: number }> {
  const profile = temporaryDirectory("sqe-bench-chromium-");
  const browser = await launchChromium(executablePath, profile);
  try {
    const page = await browser.newPage();
    await page.goto(`${url}/`, { waitUntil: "load" });
    await page.waitForSelector("body[data-ready]");
    // A string, not a function: tsx would name the function's inner functions with a helper the page lacks.
    // The script marks the body once it has run; the paint entry may come a frame later.
    return (await page.evaluate(`(async () => {
      const paint = await new Promise((resolve) => {
        const found = performance.getEntriesByName("first-contentful-paint")[0];
        if (found !== undefined) return resolve(found.startTime);
        new PerformanceObserver((list) => resolve(list.getEntries()[0].startTime)).observe({ type: "paint", buffered: true });
      });
      return { firstPaintMs: paint, readyMs: performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd };
    })()`)) as { firstPaintMs: number; readyMs: number };
  } finally {
    await browser.close();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

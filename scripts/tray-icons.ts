// `node scripts/tray-icons.ts`: renders the tray glyphs (assets/tray/src/<state>.svg) and the app
// icon (assets/icon.svg) to the committed PNGs, in Chromium (the system one, through
// playwright-core), so no image tool needs installing.
// `--check` renders in memory instead and exits 1 when a committed PNG is missing or no longer
// matches its source (a stale icon); edge anti-aliasing differences are tolerated.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { TRAY_ICON_STATES, TRAY_ICON_VARIANTS, trayIconPath } from "../main/electron/tray-icons.ts";
import { chromiumAvailable, launchChromium } from "../test/browser/chromium.ts";
import { decodePng, type Rgba } from "../test/unit/png.ts";

const root = join(import.meta.dirname, "..");
const assets = join(root, "assets");

/** `invert`: the glyph drawn white instead of black (a CSS invert keeps its alpha exactly). */
type Job = { source: string; output: string; size: number; invert?: boolean };

const jobs: Job[] = [
  ...TRAY_ICON_STATES.flatMap((state) =>
    TRAY_ICON_VARIANTS.flatMap((variant) => {
      const source = join(assets, "tray", "src", `${state}.svg`);
      const output = trayIconPath(assets, state, variant);
      const invert = variant === "White";
      return [
        { source, output, size: 18, invert },
        { source, output: output.replace(/\.png$/, "@2x.png"), size: 36, invert },
      ];
    }),
  ),
  { source: join(assets, "icon.svg"), output: join(assets, "icon.png"), size: 1024 },
];

/**
 * Why `committed` no longer matches `fresh`, or null when it does. Both are averaged over k×k
 * blocks (k = 2 for tray icons, 16 for the app icon) before comparing: anti-aliasing only moves
 * coverage between neighbouring edge pixels, so it mostly cancels out in a block, while a moved
 * shape or a new colour does not. Averaging also damps the noise as k grows, hence a tighter
 * limit for bigger blocks. Measured: switching between supersampled and analytic anti-aliasing
 * stays under two thirds of the limit; a 1 px shape change in a tray icon, or a 20 px one or a
 * slight colour change in the app icon, goes 1.5–2× over it.
 */
/** A byte of the image; x and y stay inside it, so the 0 is never used. */
const byteAt = (img: Rgba, i: number): number => img.data[i] ?? 0;

function staleness(committed: Rgba, fresh: Rgba): string | null {
  const { width, height } = fresh;
  if (committed.width !== width || committed.height !== height) {
    return `is ${committed.width}×${committed.height}, the source renders ${width}×${height}`;
  }
  const k = Math.max(2, Math.floor(width / 64));
  const limit = Math.max(16, 80 / k);
  for (let by = 0; by < height; by += k) {
    for (let bx = 0; bx < width; bx += k) {
      const sum = [0, 0, 0, 0];
      let n = 0;
      for (let y = by; y < Math.min(by + k, height); y++) {
        for (let x = bx; x < Math.min(bx + k, width); x++, n++) {
          const i = (y * width + x) * 4;
          const a1 = byteAt(committed, i + 3),
            a2 = byteAt(fresh, i + 3);
          // Premultiplied, so the colour of a transparent pixel does not count.
          for (let c = 0; c < 3; c++) sum[c] = (sum[c] ?? 0) + (byteAt(committed, i + c) * a1 - byteAt(fresh, i + c) * a2) / 255;
          sum[3] = (sum[3] ?? 0) + a1 - a2;
        }
      }
      const worst = Math.max(...sum.map((v) => Math.abs(v) / n));
      if (worst > limit) return `differs from its source near (${bx}, ${by}) by ${Math.round(worst)} of 255`;
    }
  }
  return null;
}

const check = process.argv.includes("--check");
const chromium = chromiumAvailable();
if (!chromium.ok) {
  console.error(`tray-icons: cannot render: ${chromium.reason}`);
  process.exit(2);
}

const started = performance.now();
const browser = await launchChromium();
const stale: string[] = [];
try {
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  for (const job of jobs) {
    await page.setViewportSize({ width: job.size, height: job.size });
    // An <img> scales the SVG by its viewBox to exactly size×size CSS pixels (= device pixels).
    const src = `data:image/svg+xml;base64,${readFileSync(job.source).toString("base64")}`;
    const filter = job.invert ? "filter:invert(1)" : "";
    await page.setContent(
      `<style>html,body{margin:0;background:transparent}img{display:block;${filter}}</style><img src="${src}" width="${job.size}" height="${job.size}">`,
    );
    const png = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: job.size, height: job.size } });
    const name = relative(root, job.output);
    if (!check) {
      writeFileSync(job.output, png);
      console.log(`wrote ${name} (${job.size}×${job.size})`);
      continue;
    }
    if (!existsSync(job.output)) {
      stale.push(`${name} is missing`);
      continue;
    }
    const why = staleness(decodePng(readFileSync(job.output)), decodePng(png));
    if (why) stale.push(`${name} ${why}`);
  }
} finally {
  await browser.close();
}

const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (stale.length > 0) {
  console.error(`tray-icons: stale icons (run \`node scripts/tray-icons.ts\` and commit the PNGs):\n  ${stale.join("\n  ")}`);
  process.exit(1);
}
console.log(
  check ? `tray-icons: ${jobs.length} PNGs match their sources (${seconds} s)` : `tray-icons: ${jobs.length} PNGs rendered (${seconds} s)`,
);

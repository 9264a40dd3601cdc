// Where windows go, as plain maths: the popover under the tray icon on the display that
// holds it, and a saved dashboard frame brought back onto a display that still exists.
export type Rect = { x: number; y: number; width: number; height: number };
export type Size = { width: number; height: number };

/** The gap between the menu bar and the popover. */
const GAP = 4;
/** Keep this much of the screen edge free when clamping. */
const MARGIN = 8;

/**
 * The popover's top-left corner: centred under the tray icon when the icon is in a top
 * bar (macOS, most Linux panels), above it when the icon sits in a bottom taskbar;
 * clamped into the display's work area and rounded to whole pixels.
 */
export function popoverPosition(tray: Rect, size: Size, workArea: Rect): { x: number; y: number } {
  const iconBelowMiddle = tray.y + tray.height / 2 > workArea.y + workArea.height / 2;
  const x = tray.x + tray.width / 2 - size.width / 2;
  const y = iconBelowMiddle ? tray.y - size.height - GAP : tray.y + tray.height + GAP;
  return {
    x: Math.round(clamp(x, workArea.x + MARGIN, workArea.x + workArea.width - size.width - MARGIN)),
    y: Math.round(clamp(y, workArea.y, workArea.y + workArea.height - size.height)),
  };
}

function clamp(v: number, min: number, max: number): number {
  return max < min ? min : Math.min(Math.max(v, min), max);
}

function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/**
 * A saved window frame, restored only where the person can reach it: on the display it
 * overlaps most, shrunk to fit and moved inside when needed. When no display shows a
 * usable part of it (that monitor is gone), the window is centred on the first display.
 */
export function restoreBounds(saved: Rect | null, workAreas: Rect[], preferred: Size): Rect {
  const primary = workAreas[0] ?? { x: 0, y: 0, width: preferred.width, height: preferred.height };
  const centred = (area: Rect, size: Size): Rect => {
    const width = Math.min(size.width, area.width);
    const height = Math.min(size.height, area.height);
    return { x: Math.round(area.x + (area.width - width) / 2), y: Math.round(area.y + (area.height - height) / 2), width, height };
  };
  const valid = saved && [saved.x, saved.y, saved.width, saved.height].every(Number.isFinite) && saved.width >= 200 && saved.height >= 150;
  if (!valid) return centred(primary, preferred);
  let best: Rect | null = null;
  let bestArea = 0;
  for (const area of workAreas) {
    const o = overlap(saved, area);
    if (o > bestArea) {
      best = area;
      bestArea = o;
    }
  }
  // The title bar must be reachable: at least a strip of 100 × 40 on screen.
  if (!best || bestArea < 100 * 40) return centred(primary, { width: saved.width, height: saved.height });
  const width = Math.min(saved.width, best.width);
  const height = Math.min(saved.height, best.height);
  return {
    x: Math.round(clamp(saved.x, best.x, best.x + best.width - width)),
    y: Math.round(clamp(saved.y, best.y, best.y + best.height - height)),
    width: Math.round(width),
    height: Math.round(height),
  };
}

// Window placement maths (main/electron/window-geometry.ts): the popover under the tray icon, and a saved frame restored onto a display that exists. Pure: no Electron, no fakes.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { popoverPosition, restoreBounds, type Rect } from "../../main/electron/window-geometry.ts";

const POPOVER = { width: 380, height: 560 };
/** A MacBook display: menu bar 25 px tall, Dock hidden. */
const MAC: Rect = { x: 0, y: 25, width: 1440, height: 875 };

describe("popoverPosition", () => {
  test("centred under a menu-bar icon, 4 px below the bar", () => {
    assert.deepEqual(popoverPosition({ x: 1000, y: 0, width: 24, height: 22 }, POPOVER, MAC), { x: 822, y: 26 });
  });

  test("an icon near the right edge keeps an 8 px margin from the screen edge", () => {
    // Centred it would be x = 1242; the rightmost allowed is 1440 - 380 - 8.
    assert.deepEqual(popoverPosition({ x: 1420, y: 0, width: 24, height: 22 }, POPOVER, MAC), { x: 1052, y: 26 });
  });

  test("an icon near the left edge keeps an 8 px margin too", () => {
    assert.deepEqual(popoverPosition({ x: 0, y: 0, width: 24, height: 22 }, POPOVER, MAC), { x: 8, y: 26 });
  });

  test("an icon in a bottom taskbar opens the popover above it", () => {
    const workArea: Rect = { x: 0, y: 0, width: 1920, height: 1040 };
    assert.deepEqual(popoverPosition({ x: 900, y: 1040, width: 24, height: 40 }, POPOVER, workArea), { x: 722, y: 476 });
    // In the bottom-right corner: clamped left of the edge, still above the bar.
    assert.deepEqual(popoverPosition({ x: 1800, y: 1040, width: 24, height: 40 }, POPOVER, workArea), { x: 1532, y: 476 });
  });

  test("an icon on a secondary display left of the primary (negative coordinates)", () => {
    const left: Rect = { x: -1280, y: 0, width: 1280, height: 800 };
    assert.deepEqual(popoverPosition({ x: -300, y: 0, width: 22, height: 22 }, POPOVER, left), { x: -479, y: 26 });
    assert.deepEqual(popoverPosition({ x: -1280, y: 0, width: 22, height: 22 }, POPOVER, left), { x: -1272, y: 26 });
    assert.deepEqual(popoverPosition({ x: -20, y: 0, width: 22, height: 22 }, POPOVER, left), { x: -388, y: 26 });
  });

  test("a display placed above the primary (negative y)", () => {
    const above: Rect = { x: 0, y: -1080, width: 1920, height: 1050 };
    assert.deepEqual(popoverPosition({ x: 1000, y: -1080, width: 24, height: 24 }, POPOVER, above), { x: 822, y: -1052 });
  });

  test("fractional tray bounds (scaled displays) are rounded to whole pixels", () => {
    const workArea: Rect = { x: 0, y: 0, width: 1440, height: 900 };
    assert.deepEqual(popoverPosition({ x: 500.3, y: 0, width: 22, height: 22.6 }, POPOVER, workArea), { x: 321, y: 27 });
  });

  test("a work area smaller than the popover pins it to the area's top-left (with the side margin)", () => {
    const tiny: Rect = { x: 100, y: 50, width: 300, height: 400 };
    assert.deepEqual(popoverPosition({ x: 200, y: 50, width: 20, height: 20 }, POPOVER, tiny), { x: 108, y: 50 });
  });

  test("the y position never leaves the work area (tall popover under a top icon)", () => {
    const workArea: Rect = { x: 0, y: 0, width: 1440, height: 600 };
    assert.deepEqual(popoverPosition({ x: 700, y: 0, width: 24, height: 24 }, { width: 380, height: 590 }, workArea), { x: 522, y: 10 });
  });
});

describe("restoreBounds", () => {
  const PREFERRED = { width: 900, height: 640 };
  const A: Rect = { x: 0, y: 0, width: 1440, height: 900 };
  const B: Rect = { x: 1440, y: 0, width: 1920, height: 1080 };

  test("no saved frame: centred on the primary display at the preferred size", () => {
    // (875 - 640) / 2 = 117.5 → 25 + 117.5 rounds to 143
    assert.deepEqual(restoreBounds(null, [MAC, B], PREFERRED), { x: 270, y: 143, width: 900, height: 640 });
  });

  test("no displays known at all: the preferred size at the origin", () => {
    assert.deepEqual(restoreBounds(null, [], PREFERRED), { x: 0, y: 0, width: 900, height: 640 });
  });

  test("a preferred size larger than the primary shrinks to it", () => {
    assert.deepEqual(restoreBounds(null, [{ x: 0, y: 0, width: 800, height: 600 }], PREFERRED), { x: 0, y: 0, width: 800, height: 600 });
  });

  test("a frame fully on a display comes back unchanged", () => {
    assert.deepEqual(restoreBounds({ x: 100, y: 120, width: 800, height: 600 }, [A, B], PREFERRED), {
      x: 100,
      y: 120,
      width: 800,
      height: 600,
    });
    assert.deepEqual(restoreBounds({ x: 2000, y: 300, width: 1000, height: 700 }, [A, B], PREFERRED), {
      x: 2000,
      y: 300,
      width: 1000,
      height: 700,
    });
  });

  test("a frame straddling two displays goes onto the one it overlaps most", () => {
    // 40 px on A, 760 px on B: moved fully onto B.
    assert.deepEqual(restoreBounds({ x: 1400, y: 100, width: 800, height: 600 }, [A, B], PREFERRED), {
      x: 1440,
      y: 100,
      width: 800,
      height: 600,
    });
    // 700 px on A, 100 px on B: moved fully onto A.
    assert.deepEqual(restoreBounds({ x: 740, y: 100, width: 800, height: 600 }, [A, B], PREFERRED), {
      x: 640,
      y: 100,
      width: 800,
      height: 600,
    });
  });

  test("a frame on a display that is gone is centred on the primary at its own size", () => {
    assert.deepEqual(restoreBounds({ x: 1600, y: 100, width: 800, height: 600 }, [A], PREFERRED), {
      x: 320,
      y: 150,
      width: 800,
      height: 600,
    });
    assert.deepEqual(restoreBounds({ x: -5000, y: -5000, width: 800, height: 600 }, [A], PREFERRED), {
      x: 320,
      y: 150,
      width: 800,
      height: 600,
    });
  });

  test("a sliver smaller than 100 × 40 on screen counts as unreachable", () => {
    // Overlap 40 × 30 in the bottom-right corner.
    assert.deepEqual(restoreBounds({ x: 1400, y: 870, width: 800, height: 600 }, [A], PREFERRED), {
      x: 320,
      y: 150,
      width: 800,
      height: 600,
    });
  });

  test("exactly 100 × 40 on screen is reachable: pulled inside that display", () => {
    assert.deepEqual(restoreBounds({ x: 1340, y: 860, width: 800, height: 600 }, [A], PREFERRED), {
      x: 640,
      y: 300,
      width: 800,
      height: 600,
    });
  });

  test("a frame larger than its display shrinks to the display", () => {
    assert.deepEqual(restoreBounds({ x: 10, y: 10, width: 2000, height: 1200 }, [A, B], PREFERRED), {
      x: 0,
      y: 0,
      width: 1440,
      height: 900,
    });
    // Off-screen and oversized: centred on the primary, shrunk to it.
    assert.deepEqual(restoreBounds({ x: 9000, y: 0, width: 2000, height: 1200 }, [A], PREFERRED), { x: 0, y: 0, width: 1440, height: 900 });
  });

  test("fractional frames are rounded", () => {
    assert.deepEqual(restoreBounds({ x: 100.4, y: 100.6, width: 800.4, height: 600.5 }, [A], PREFERRED), {
      x: 100,
      y: 101,
      width: 800,
      height: 601,
    });
  });

  test("unusable frames fall back to the preferred size on the primary", () => {
    const centred = { x: 270, y: 130, width: 900, height: 640 };
    for (const bad of [
      { x: Number.NaN, y: 0, width: 800, height: 600 },
      { x: 0, y: Number.POSITIVE_INFINITY, width: 800, height: 600 },
      { x: 0, y: 0, width: Number.NaN, height: 600 },
      { x: 0, y: 0, width: 199, height: 600 },
      { x: 0, y: 0, width: 800, height: 149 },
      { x: 0, y: 0, width: -800, height: 600 },
    ]) {
      assert.deepEqual(restoreBounds(bad, [A, B], PREFERRED), centred, JSON.stringify(bad));
    }
    // The smallest accepted frame.
    assert.deepEqual(restoreBounds({ x: 5, y: 5, width: 200, height: 150 }, [A], PREFERRED), { x: 5, y: 5, width: 200, height: 150 });
  });
});

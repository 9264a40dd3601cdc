// The committed tray glyphs: one per tray state, 18 px and @2x, macOS template images
// (black + alpha only), non-empty and distinct, each with a white twin for dark panels
// elsewhere; which set each platform shows; and the 1024 px app icon.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { deflateSync } from "node:zlib";
import { TRAY_ICON_STATES, trayIconPath, trayIconVariant } from "../../main/electron/tray-icons.ts";
import { decodePng, type Rgba } from "./png.ts";

const assets = join(import.meta.dirname, "..", "..", "assets");

/** Width and height straight from the IHDR chunk, which must come first. */
function ihdrSize(file: Buffer): { width: number; height: number } {
  assert.equal(file.toString("latin1", 12, 16), "IHDR", "IHDR is the first chunk");
  return { width: file.readUInt32BE(16), height: file.readUInt32BE(20) };
}

const at2x = (path: string) => path.replace(/\.png$/, "@2x.png");

const images = new Map<string, Rgba>();
function load(path: string): Rgba {
  let image = images.get(path);
  if (!image) images.set(path, (image = decodePng(readFileSync(path))));
  return image;
}

/** A PNG of `rgba` (width w) whose row y uses filter type y % 5, to exercise every filter. */
function encodeRgba(w: number, rgba: Uint8Array): Buffer {
  const stride = w * 4,
    h = rgba.length / stride;
  const filtered = Buffer.alloc(h * (stride + 1));
  for (let y = 0; y < h; y++) {
    const type = y % 5;
    filtered[y * (stride + 1)] = type;
    for (let x = 0; x < stride; x++) {
      const a = x >= 4 ? rgba[y * stride + x - 4]! : 0;
      const b = y > 0 ? rgba[(y - 1) * stride + x]! : 0;
      const c = x >= 4 && y > 0 ? rgba[(y - 1) * stride + x - 4]! : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const predicted = [0, a, b, (a + b) >> 1, paeth][type]!;
      filtered[y * (stride + 1) + 1 + x] = (rgba[y * stride + x]! - predicted) & 0xff;
    }
  }
  const chunk = (type: string, body: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(body.length);
    return Buffer.concat([length, Buffer.from(type, "latin1"), body, Buffer.alloc(4)]); // CRC unchecked
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", ihdr), chunk("IDAT", deflateSync(filtered)), chunk("IEND", Buffer.alloc(0))]);
}

test("decodePng undoes all five PNG filter types", () => {
  let seed = 7;
  const rgba = Uint8Array.from({ length: 6 * 10 * 4 }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
  const image = decodePng(encodeRgba(6, rgba));
  assert.deepEqual({ width: image.width, height: image.height }, { width: 6, height: 10 });
  assert.deepEqual(image.data, rgba);
});

test("the states are the tray model's six, each with an SVG source", () => {
  assert.deepEqual([...TRAY_ICON_STATES], ["idle", "working", "ready", "attention", "needs", "disconnected"]);
  for (const state of TRAY_ICON_STATES) assert.ok(existsSync(join(assets, "tray", "src", `${state}.svg`)), `${state}.svg`);
});

test("trayIconPath names the 1× template image; Electron finds @2x beside it", () => {
  const path = trayIconPath(assets, "working");
  assert.equal(path, join(assets, "tray", "workingTemplate.png"));
  assert.equal(dirname(at2x(path)), dirname(path));
});

for (const state of TRAY_ICON_STATES) {
  describe(`tray icon "${state}"`, () => {
    for (const [path, size] of [
      [trayIconPath(assets, state), 18],
      [at2x(trayIconPath(assets, state)), 36],
    ] as const) {
      const name = path.slice(assets.length + 1);
      test(`${name} is ${size}×${size}`, () => {
        assert.deepEqual(ihdrSize(readFileSync(path)), { width: size, height: size });
        const image = load(path);
        assert.equal(image.data.length, size * size * 4);
      });

      test(`${name} is a template image: black with alpha only, and not empty`, () => {
        const { data } = load(path);
        let opaque = 0;
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3]! === 0) continue;
          assert.deepEqual([data[i], data[i + 1], data[i + 2]], [0, 0, 0], `pixel ${i / 4} is not black`);
          if (data[i + 3]! >= 200) opaque++;
        }
        // At least a full-length stroke of solid pixels (the dimmed "disconnected" card keeps
        // only its slash solid), and far from a filled square.
        assert.ok(opaque >= size, `only ${opaque} opaque pixels`);
        assert.ok(opaque <= size * size * 0.6, `${opaque} opaque pixels: not a glyph`);
      });
    }
  });
}

for (const state of TRAY_ICON_STATES) {
  for (const [template, size] of [
    [trayIconPath(assets, state), 18],
    [at2x(trayIconPath(assets, state)), 36],
  ] as const) {
    const white = template.replace("Template", "White");
    test(`${white.slice(assets.length + 1)}: the same glyph in white (same size, same alpha)`, () => {
      assert.equal(trayIconPath(assets, state, "White"), trayIconPath(assets, state).replace("Template", "White"));
      const a = load(template),
        b = load(white);
      assert.deepEqual({ width: b.width, height: b.height }, { width: size, height: size });
      let opaque = 0;
      for (let i = 0; i < b.data.length; i += 4) {
        assert.ok(
          Math.abs(a.data[i + 3]! - b.data[i + 3]!) <= 2,
          `pixel ${i / 4}: alpha ${b.data[i + 3]} vs the template's ${a.data[i + 3]}`,
        );
        if (b.data[i + 3]! === 0) continue;
        assert.deepEqual([b.data[i], b.data[i + 1], b.data[i + 2]], [255, 255, 255], `pixel ${i / 4} is not white`);
        if (b.data[i + 3]! >= 200) opaque++;
      }
      assert.ok(opaque >= size, `only ${opaque} opaque pixels`);
    });
  }
}

describe("which glyphs a platform shows", () => {
  test("macOS: always the template (the system tints it for the menu bar)", () => {
    assert.equal(trayIconVariant("darwin", {}, false), "Template");
    assert.equal(trayIconVariant("darwin", { XDG_CURRENT_DESKTOP: "GNOME" }, true), "Template");
  });
  test("a dark theme on Linux or Windows: white", () => {
    assert.equal(trayIconVariant("linux", { XDG_CURRENT_DESKTOP: "KDE" }, true), "White");
    assert.equal(trayIconVariant("win32", {}, true), "White");
  });
  test("a light theme: black, except on the GNOME family, whose top bar stays dark", () => {
    assert.equal(trayIconVariant("win32", {}, false), "Template");
    assert.equal(trayIconVariant("linux", { XDG_CURRENT_DESKTOP: "KDE" }, false), "Template");
    assert.equal(trayIconVariant("linux", {}, false), "Template");
    for (const desktop of ["GNOME", "ubuntu:GNOME", "Unity", "X-Cinnamon", "Budgie:GNOME", "Pantheon"]) {
      assert.equal(trayIconVariant("linux", { XDG_CURRENT_DESKTOP: desktop }, false), "White", desktop);
    }
    assert.equal(trayIconVariant("linux", { DESKTOP_SESSION: "gnome" }, false), "White");
    assert.equal(trayIconVariant("linux", { XDG_CURRENT_DESKTOP: "GNOMEish-fork" }, false), "Template", "whole names only");
  });
});

test("every state looks different from every other, at both sizes", () => {
  for (const scale of [(p: string) => p, at2x]) {
    const rendered = TRAY_ICON_STATES.map((state) => ({ state, image: load(scale(trayIconPath(assets, state))) }));
    for (const [i, a] of rendered.entries()) {
      for (const b of rendered.slice(i + 1)) {
        let changed = 0;
        for (let p = 3; p < a.image.data.length; p += 4) if (Math.abs(a.image.data[p]! - b.image.data[p]!) > 64) changed++;
        assert.ok(changed >= 4, `${a.state} and ${b.state} differ in only ${changed} pixels`);
      }
    }
  }
});

test("the app icon is a 1024×1024 colour image on a transparent canvas", () => {
  const path = join(assets, "icon.png");
  assert.deepEqual(ihdrSize(readFileSync(path)), { width: 1024, height: 1024 });
  const { data } = load(path);
  const pixel = (x: number, y: number) => [...data.subarray((y * 1024 + x) * 4, (y * 1024 + x) * 4 + 4)];
  assert.equal(pixel(0, 0)[3], 0, "the corner outside the rounded square is clear");
  const [r, g, b, a] = pixel(150, 512);
  assert.equal(a, 255);
  assert.ok(Math.max(r!, g!, b!) - Math.min(r!, g!, b!) > 60, "the background is coloured, not grey");
});

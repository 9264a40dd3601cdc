// The app:// scheme (main/electron/app-protocol.ts with main/core/page-files.ts): page URLs, the origin check, and what app://desk/… serves from a real temp pages folder — files with the strict CSP, nothing outside it. No Electron needed.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { APP_CSP, APP_ORIGIN, APP_SCHEME, appResponse, isAppUrl, pageUrl } from "../../main/electron/app-protocol.ts";
import type { CardRef } from "../../common/contract.ts";

const EXPECTED_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const NOT_FOUND = { status: 404, headers: { "content-type": "text/plain; charset=utf-8" }, body: "Not found" };

function headersFor(contentType: string): Record<string, string> {
  return {
    "content-type": contentType,
    "content-security-policy": EXPECTED_CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
    "cache-control": "no-store",
  };
}

describe("constants and URLs", () => {
  test("the origin is app://desk", () => {
    assert.equal(APP_SCHEME, "app");
    assert.equal(APP_ORIGIN, "app://desk");
  });

  test("the CSP is exactly the strict policy: nothing by default, no network at all", () => {
    assert.equal(APP_CSP, EXPECTED_CSP);
    const directives = APP_CSP.split("; ");
    assert.ok(directives.includes("default-src 'none'"));
    assert.ok(directives.includes("connect-src 'none'"));
    assert.equal(directives.filter((d) => d.startsWith("connect-src")).length, 1);
  });

  test("pageUrl names each page under the app origin", () => {
    assert.equal(pageUrl("popover"), "app://desk/popover.html");
    assert.equal(pageUrl("dashboard"), "app://desk/dashboard.html");
    assert.equal(pageUrl("settings"), "app://desk/settings.html");
  });

  test("pageUrl with a card puts the encoded card in the hash, and it decodes back", () => {
    const card: CardRef = { gatewayId: "home", sessionKey: "agent:main:x#y&z=ü /%", agentId: null };
    const url = pageUrl("popover", card);
    assert.equal(url, `app://desk/popover.html#card=${encodeURIComponent(JSON.stringify(card))}`);
    const hash = new URL(url).hash;
    assert.ok(hash.startsWith("#card="));
    assert.deepEqual(JSON.parse(decodeURIComponent(hash.slice("#card=".length))), card);
    assert.equal(isAppUrl(url), true);
  });

  test("isAppUrl accepts only our scheme and host", () => {
    for (const ok of ["app://desk/", "app://desk", "app://desk/popover.html", "app://desk/settings.html?x=1#card=%7B%7D"]) {
      assert.equal(isAppUrl(ok), true, ok);
    }
    for (const bad of [
      "app://evil/popover.html",
      "app://desk.evil/",
      "app://evil.desk/",
      "app://desk:8080/",
      "app:desk",
      "app:/desk/popover.html",
      "https://desk/popover.html",
      "http://desk/",
      "file:///desk/popover.html",
      "devtools://devtools/bundled/inspector.html",
      "javascript:alert(1)",
      "about:blank",
      "",
      "not a url",
    ]) {
      assert.equal(isAppUrl(bad), false, bad);
    }
  });
});

describe("appResponse", () => {
  let base = "";
  let pages = "";

  before(async () => {
    base = await mkdtemp(join(tmpdir(), "pd-app-protocol-"));
    pages = join(base, "pages");
    await mkdir(join(pages, "assets"), { recursive: true });
    await writeFile(join(pages, "popover.html"), "<!doctype html><title>popover</title>");
    await writeFile(join(pages, "dashboard.html"), "<!doctype html><title>dashboard</title>");
    await writeFile(join(pages, "assets", "app.js"), "console.log('app');");
    await writeFile(join(pages, "assets", "app.css"), "body{}");
    await writeFile(join(pages, "assets", "icon.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    await writeFile(join(pages, "assets", "blob.bin"), "raw");
    await writeFile(join(pages, "name with space.html"), "spaced");
    // Things a traversal would reach: beside the pages folder, and a sibling with the same prefix.
    await writeFile(join(base, "secret.txt"), "TOP SECRET");
    await mkdir(join(base, "pages-evil"));
    await writeFile(join(base, "pages-evil", "x.html"), "EVIL");
  });

  after(async () => {
    await rm(base, { recursive: true, force: true });
  });

  test("a page is served with its type, the CSP and the hardening headers", async () => {
    const r = await appResponse("app://desk/dashboard.html", pages);
    assert.equal(r.status, 200);
    assert.deepEqual(r.headers, headersFor("text/html; charset=utf-8"));
    assert.equal(r.headers["content-security-policy"], APP_CSP);
    assert.ok(Buffer.isBuffer(r.body));
    assert.equal(r.body.toString(), "<!doctype html><title>dashboard</title>");
  });

  test("the root and the bare origin serve the popover", async () => {
    for (const url of ["app://desk/", "app://desk"]) {
      const r = await appResponse(url, pages);
      assert.equal(r.status, 200, url);
      assert.equal(r.body.toString(), "<!doctype html><title>popover</title>", url);
    }
  });

  test("a query or a hash does not change the file", async () => {
    const r = await appResponse(pageUrl("popover", { gatewayId: "g", sessionKey: "k", agentId: "a" }), pages);
    assert.equal(r.status, 200);
    assert.equal(r.body.toString(), "<!doctype html><title>popover</title>");
    const q = await appResponse("app://desk/dashboard.html?v=2", pages);
    assert.equal(q.body.toString(), "<!doctype html><title>dashboard</title>");
  });

  test("content types follow the extension; unknown ones are octet-stream", async () => {
    const cases: [string, string][] = [
      ["app://desk/assets/app.js", "text/javascript; charset=utf-8"],
      ["app://desk/assets/app.css", "text/css; charset=utf-8"],
      ["app://desk/assets/icon.png", "image/png"],
      ["app://desk/assets/blob.bin", "application/octet-stream"],
    ];
    for (const [url, type] of cases) {
      const r = await appResponse(url, pages);
      assert.equal(r.status, 200, url);
      assert.deepEqual(r.headers, headersFor(type), url);
    }
    const png = await appResponse("app://desk/assets/icon.png", pages);
    assert.deepEqual([...(png.body as Buffer)], [0x89, 0x50, 0x4e, 0x47]);
  });

  test("percent-encoded names inside the folder are decoded", async () => {
    const r = await appResponse("app://desk/name%20with%20space.html", pages);
    assert.equal(r.status, 200);
    assert.equal(r.body.toString(), "spaced");
  });

  test("HEAD answers the headers with an empty body", async () => {
    const r = await appResponse("app://desk/popover.html", pages, "HEAD");
    assert.equal(r.status, 200);
    assert.deepEqual(r.headers, headersFor("text/html; charset=utf-8"));
    assert.equal(r.body, "");
  });

  test("other methods are refused with 405", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
      const r = await appResponse("app://desk/popover.html", pages, method);
      assert.deepEqual(r, { status: 405, headers: { "content-type": "text/plain; charset=utf-8" }, body: "Method not allowed" }, method);
    }
  });

  test("a missing file or a folder is a plain 404", async () => {
    for (const url of ["app://desk/nope.html", "app://desk/assets", "app://desk/assets/", "app://desk/assets/missing.js"]) {
      assert.deepEqual(await appResponse(url, pages), NOT_FOUND, url);
    }
  });

  test("traversal attempts never leave the pages folder", async () => {
    for (const url of [
      "app://desk/../secret.txt",
      "app://desk/assets/../../secret.txt",
      "app://desk/%2e%2e/secret.txt",
      "app://desk/%2e%2e%2fsecret.txt",
      "app://desk/..%2fsecret.txt",
      "app://desk/..%2Fsecret.txt",
      "app://desk/assets%2f..%2f..%2fsecret.txt",
      "app://desk/..%2fpages-evil%2fx.html",
      "app://desk/%2e%2e%2fpages-evil/x.html",
      "app://desk/..%5csecret.txt",
      "app://desk/..\\secret.txt",
      `app://desk/${encodeURIComponent(join(base, "secret.txt"))}`,
    ]) {
      const r = await appResponse(url, pages);
      assert.deepEqual(r, NOT_FOUND, url);
    }
  });

  test("an encoded NUL or undecodable escape is a 404", async () => {
    for (const url of [
      "app://desk/popover.html%00",
      "app://desk/popover.html%00.png",
      "app://desk/%00",
      "app://desk/%E0%A4%A",
      "app://desk/%",
    ]) {
      assert.deepEqual(await appResponse(url, pages), NOT_FOUND, url);
    }
  });

  test("another host or another scheme is a 404, whatever the method", async () => {
    for (const url of [
      "app://evil/popover.html",
      "app://desk.evil/popover.html",
      "https://desk/popover.html",
      "http://desk/popover.html",
      `file://${join(pages, "popover.html")}`,
      "not a url",
    ]) {
      assert.deepEqual(await appResponse(url, pages), NOT_FOUND, url);
      assert.deepEqual(await appResponse(url, pages, "POST"), NOT_FOUND, `POST ${url}`);
    }
  });

  test("a pages folder given with a trailing separator works the same", async () => {
    const r = await appResponse("app://desk/popover.html", pages + "/");
    assert.equal(r.status, 200);
    assert.deepEqual(await appResponse("app://desk/..%2fsecret.txt", pages + "/"), NOT_FOUND);
  });
});

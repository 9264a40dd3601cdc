// The pages table (common/pages.ts): each page's path, and the page a path names. Every shell
// routes by it (app://, IPC senders, the browser host), so a path it does not know is no page.
import assert from "node:assert/strict";
import { test } from "node:test";
import { isPage, pageOfPath, pagePath, PAGES, ROOT_PAGE } from "../../common/pages.ts";

test("each page is served from its own html file, and the root is the popover", () => {
  assert.deepEqual(
    PAGES.map((p) => [p, pagePath(p)]),
    [
      ["popover", "/popover.html"],
      ["dashboard", "/dashboard.html"],
      ["settings", "/settings.html"],
    ],
  );
  assert.equal(ROOT_PAGE, "popover");
});

test("a page's path names that page back", () => {
  for (const p of PAGES) assert.equal(pageOfPath(pagePath(p)), p);
});

test("any other path names no page: the root, other spellings, queries, climbs, assets", () => {
  for (const path of [
    "/",
    "",
    "popover.html",
    "/Popover.html",
    "/popover.htm",
    "/popover.html?x=1",
    "/popover.html/",
    "//popover.html",
    "/a/popover.html",
    "/assets/../settings.html",
    "/assets/index.js",
    "/constructor",
    "/toString",
    "/index.html",
  ]) {
    assert.equal(pageOfPath(path), null, path);
  }
});

test("page names: exactly the three, nothing inherited or spelled otherwise", () => {
  for (const p of PAGES) assert.ok(isPage(p));
  for (const v of ["Popover", "", "constructor", "toString", null, undefined, 1, ["popover"]]) assert.equal(isPage(v), false, String(v));
});

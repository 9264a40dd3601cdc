// R3–R5, C5, C6: the note renderer (renderer/lib/markdown.ts), bundled by Vite and run in real
// Chromium behind the app's strict CSP. Every payload of the XSS corpus is rendered, inserted
// with innerHTML (as Svelte's {@html} does), poked with events, and inspected; no request may
// leave the page and the page may not navigate. Then ordinary rendering and timing.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { RenderedNote } from "../../renderer/lib/markdown-types.ts";
import { noteLine, noteTextOfTokens } from "../../common/note-line.ts";
import { Lexer } from "marked";
import { XSS_PAYLOADS } from "../fixtures/xss/payloads.ts";
import { realisticNote } from "../../bench/realistic-note.ts";
import type { XssPayload } from "../fixtures/xss/payloads.ts";
import { bundleModule } from "./bundle.ts";
import type { Bundle } from "./bundle.ts";
import { chromiumAvailable, guardNetwork, launchChromium } from "./chromium.ts";
import type { NetworkLog } from "./chromium.ts";
import {
  callIsSafeLink,
  callRenderNote,
  callRenderNoteOnValues,
  installTripwires,
  pageReady,
  pageState,
  readLog,
  runBatch,
} from "./page-harness.ts";
import type { HarnessLog } from "./page-harness.ts";
import { startStaticServer } from "./server.ts";
import type { StaticServer } from "./server.ts";

// Callbacks passed to page.evaluate run inside the page; the Node-side program has no DOM types.
declare const document: any;

const ROOT = join(import.meta.dirname, "..", "..");
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'none'";
const BATCH = 50;

/** What the spec allows (R3), written out independently of the implementation. */
const ALLOWED: Record<string, string[]> = {
  p: [],
  br: [],
  hr: [],
  strong: [],
  em: [],
  b: [],
  i: [],
  del: [],
  s: [],
  code: [],
  pre: [],
  blockquote: [],
  ul: [],
  ol: ["start"],
  li: [],
  h1: [],
  h2: [],
  h3: [],
  h4: [],
  h5: [],
  h6: [],
  table: [],
  thead: [],
  tbody: [],
  tr: [],
  th: ["align"],
  td: ["align"],
  a: ["href", "rel", "title", "aria-label"],
  progress: ["value", "max", "aria-label"],
};

const INDEX = (title: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,">` +
  `<script type="module" src="/boot.js"></script></head><body><main></main></body></html>`;
const BOOT = `import * as markdown from "/markdown.js";\nwindow.__markdown = markdown;\ndocument.documentElement.dataset.ready = "1";\n`;

/** A kept link as the renderer writes it: where it goes in the tooltip and in its accessible name. */
const link = (href: string, text: string, destination: string): string =>
  `<a href="${href}" rel="noopener noreferrer" title="Opens ${destination}\n${href}" aria-label="${text} (opens ${destination})">${text}</a>`;

type Session = {
  context: BrowserContext;
  page: Page;
  network: NetworkLog;
  navigations: string[];
  dialogs: string[];
  pageErrors: string[];
  /** Served with the app's CSP (no inline styles), so the harness can use its CSP sentinel. */
  strictCsp: boolean;
};

const chromium = chromiumAvailable();

describe("note renderer in Chromium (R3–R5, C5, C6)", { skip: chromium.ok ? false : chromium.reason }, () => {
  let bundle: Bundle;
  let server: StaticServer;
  let browser: Browser;
  const sessions: Session[] = [];
  let strict: Session;

  async function open(path: string): Promise<Session> {
    const context = await browser.newContext({ serviceWorkers: "block", javaScriptEnabled: true });
    const network = await guardNetwork(context, server.origin, server.paths);
    await context.addInitScript(installTripwires);
    const page = await context.newPage();
    const session: Session = { context, page, network, navigations: [], dialogs: [], pageErrors: [], strictCsp: path === "/" };
    page.on("dialog", (dialog) => {
      session.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss();
    });
    page.on("pageerror", (error) => session.pageErrors.push(String(error)));
    page.on("popup", (popup) => session.navigations.push(`popup ${popup.url()}`));
    await page.goto(server.origin + path);
    await page.waitForFunction(pageReady);
    page.on("framenavigated", (frame) => session.navigations.push(`${frame === page.mainFrame() ? "main" : "frame"} ${frame.url()}`));
    sessions.push(session);
    return session;
  }

  async function render(markdown: string | null): Promise<RenderedNote> {
    return strict.page.evaluate(callRenderNote, markdown);
  }

  before(async () => {
    bundle = await bundleModule(join(ROOT, "renderer/lib/markdown.ts"), "markdown.js", ROOT);
    server = await startStaticServer({
      "/": { type: "text/html; charset=utf-8", body: INDEX("strict CSP"), headers: { "content-security-policy": CSP } },
      "/no-csp.html": { type: "text/html; charset=utf-8", body: INDEX("no CSP") },
      "/boot.js": { type: "text/javascript; charset=utf-8", body: BOOT },
      "/markdown.js": { type: "text/javascript; charset=utf-8", body: bundle.code },
    });
    browser = await launchChromium();
    strict = await open("/");
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await bundle?.dispose();
  });

  async function runCorpus(session: Session, payloads: readonly XssPayload[]): Promise<string[]> {
    const failures: string[] = [];
    for (let i = 0; i < payloads.length; i += BATCH) {
      const items = payloads.slice(i, i + BATCH).map(({ id, markdown }) => ({ id, markdown }));
      const before = await session.page.evaluate(readLog);
      const { results, liveViolations } = await session.page.evaluate(runBatch, {
        items,
        raw: false,
        allowed: ALLOWED,
        strictCsp: session.strictCsp,
      });
      const afterLog = await session.page.evaluate(readLog);
      for (const r of results)
        if (r.problems.length > 0) failures.push(`${r.id}: ${r.problems.join("; ")}\n    html: ${r.html.slice(0, 300)}`);
      const delta = logDelta(before, afterLog);
      if (liveViolations.length > 0) delta.push(`CSP violations while live: ${liveViolations.join(" | ")}`);
      if (delta.length > 0) failures.push(`batch ${items[0]?.id}…${items.at(-1)?.id}: ${delta.join("; ")}`);
    }
    const state = await session.page.evaluate(pageState);
    if (state.href !== server.origin + new URL(session.page.url()).pathname) failures.push(`page moved to ${state.href}`);
    if (state.baseURI !== state.href) failures.push(`base URI changed to ${state.baseURI}`);
    if (state.scripts !== 1 || state.headExtras !== 0) failures.push(`page gained elements: ${JSON.stringify(state)}`);
    return failures;
  }

  function logDelta(a: HarnessLog, b: HarnessLog): string[] {
    const out: string[] = [];
    const grew = (name: keyof HarnessLog, x: unknown[], y: unknown[]) => {
      if (y.length > x.length) out.push(`${name}: ${y.slice(x.length).join(" | ")}`);
    };
    grew("xss", a.xss, b.xss);
    grew("dialogs", a.dialogs, b.dialogs);
    grew("opens", a.opens, b.opens);
    grew("errors", a.errors, b.errors);
    if (b.submits > a.submits) out.push(`submits: ${b.submits - a.submits}`);
    const unsafeClicks = b.clicks.slice(a.clicks.length).filter((href) => !/^(?:https?|mailto):/.test(href));
    if (unsafeClicks.length > 0) out.push(`unsafe link clicked: ${unsafeClicks.join(" | ")}`);
    return out;
  }

  function assertQuiet(session: Session): void {
    assert.deepEqual(session.network.blocked, [], "requests that tried to leave the page");
    assert.deepEqual(session.network.sockets, [], "WebSocket attempts");
    assert.deepEqual(session.dialogs, [], "native dialogs");
    assert.deepEqual(session.pageErrors, [], "uncaught page errors");
    assert.deepEqual(session.navigations, [], "navigations or popups");
    for (const path of session.network.served)
      assert.ok(["/", "/no-csp.html", "/boot.js", "/markdown.js"].includes(path), `served ${path}`);
  }

  // -------------------------------------------------------------------------------------

  describe("XSS corpus", () => {
    test(`corpus size and shape (${XSS_PAYLOADS.length} payloads)`, () => {
      assert.ok(XSS_PAYLOADS.length >= 200);
      assert.equal(new Set(XSS_PAYLOADS.map((p) => p.id)).size, XSS_PAYLOADS.length, "unique ids");
      for (const p of XSS_PAYLOADS) assert.ok(Buffer.byteLength(p.markdown) <= 8192, `${p.id} within the C5 note limit`);
    });

    test("every payload is inert behind the app's strict CSP", async () => {
      const failures = await runCorpus(strict, XSS_PAYLOADS);
      assert.deepEqual(failures, []);
      assertQuiet(strict);
    });

    test("every payload is inert without any CSP (the sanitizer alone)", async () => {
      const session = await open("/no-csp.html");
      const failures = await runCorpus(session, XSS_PAYLOADS);
      assert.deepEqual(failures, []);
      assertQuiet(session);
    });

    test("the oracle is live: unsanitized HTML trips it (control)", async () => {
      const raw = [
        { id: "handler", markdown: `<img src="/canary.png" onerror="__xss('canary')">` },
        { id: "remote", markdown: `<img src="https://evil.example/canary.png">` },
        { id: "link", markdown: `<a href="javascript:__xss('link')">x</a>` },
        { id: "style", markdown: `<p style="color:red" id="location">x</p>` },
      ];
      for (const path of ["/no-csp.html", "/"]) {
        const session = await open(path);
        const input = { items: raw, raw: true, allowed: ALLOWED, strictCsp: session.strictCsp };
        const { results, liveViolations } = await session.page.evaluate(runBatch, input);
        for (const r of results) assert.ok(r.problems.length > 0, `${path} ${r.id}: the inspection finds it`);
        const log = await session.page.evaluate(readLog);
        if (path === "/") {
          assert.ok(
            liveViolations.some((v) => v.startsWith("script-src")),
            `CSP reports the blocked handler: ${liveViolations.join(" | ")}`,
          );
          assert.ok(
            liveViolations.some((v) => v.startsWith("img-src") && v.includes("evil.example")),
            "CSP reports the remote image",
          );
          assert.deepEqual(log.xss, [], "CSP stops the handler");
        } else {
          assert.ok(log.xss.includes("canary"), `the tripwire fires without CSP: ${JSON.stringify(log)}`);
          assert.ok(
            session.network.blocked.some((u) => u.startsWith("https://evil.example/")),
            "a remote request is caught",
          );
        }
        assert.ok(
          session.network.blocked.some((u) => u.endsWith("/canary.png")),
          "a same-origin request outside the page's files is caught",
        );
        assert.ok(log.clicks.includes("javascript:__xss('link')"), "link clicks are intercepted and recorded");
        assert.deepEqual(session.navigations, [], "clicks never navigate");
        sessions.splice(sessions.indexOf(session), 1);
        await session.context.close();
      }
    });
  });

  // -------------------------------------------------------------------------------------

  describe("ordinary rendering", () => {
    test("headings, emphasis, inline code, strikethrough", async () => {
      const r = await render("# Title\n\n## Sub\n\n**bold** *em* `a<b>` ~~gone~~");
      assert.equal(
        r.html,
        "<h1>Title</h1>\n<h2>Sub</h2>\n<p><strong>bold</strong> <em>em</em> <code>a&lt;b&gt;</code> <del>gone</del></p>",
      );
      assert.equal(r.empty, false);
      assert.equal(r.progress, null);
    });

    test("lists: bullets, numbered with start, nested, task lists as text", async () => {
      const r = await render("- one\n  - nested\n- two\n\n3. three\n4. four\n\n- [x] done\n- [ ] todo");
      assert.match(r.html, /<ul>\n<li>one<ul>\n<li>nested<\/li>\n<\/ul>\n<\/li>\n<li>two<\/li>\n<\/ul>/);
      assert.match(r.html, /<ol start="3">\n<li>three<\/li>\n<li>four<\/li>\n<\/ol>/);
      assert.match(r.html, /<li>\u2611 done<\/li>\n<li>\u2610 todo<\/li>/);
      assert.doesNotMatch(r.html, /<input/);
    });

    test("tables keep alignment and nothing else", async () => {
      const r = await render("| Step | State |\n|:--|:-:|\n| Build | **ok** |\n| Test | 3/7 |");
      assert.match(r.html, /<table>\n<thead>\n<tr>\n<th align="left">Step<\/th>\n<th align="center">State<\/th>/);
      assert.match(r.html, /<td align="left">Build<\/td>\n<td align="center"><strong>ok<\/strong><\/td>/);
    });

    test("code blocks are escaped and lose their language class", async () => {
      const r = await render("```html\n<script>alert(1)</script>\n```\n\n    indented <b>\n");
      assert.equal(r.html, "<pre><code>&lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre>\n<pre><code>indented &lt;b&gt;\n</code></pre>");
    });

    test("http, https and mailto links are kept, normalised, rel=noopener noreferrer, no target", async () => {
      const r2 = await render(
        "[docs](HTTPS://Docs.Example/path?q=1#h) <http://x.example> <me@mail.example> www.w.example [m](mailto:a@b.example)",
      );
      assert.equal(
        r2.html,
        `<p>${link("https://docs.example/path?q=1#h", "docs", "docs.example")} ` +
          `${link("http://x.example/", "http://x.example", "x.example")} ` +
          `${link("mailto:me@mail.example", "me@mail.example", "an email to me@mail.example")} ` +
          `${link("http://www.w.example/", "www.w.example", "www.w.example")} ` +
          `${link("mailto:a@b.example", "m", "an email to a@b.example")}</p>`,
      );
      assert.doesNotMatch(r2.html, /target=/);
    });

    test("a link says where it goes before it opens: host and full URL in its tooltip, host in its accessible name", async () => {
      // The text claims one place, the link goes to another: the tooltip and name tell the truth.
      const r = await render("Sign in at [https://bank.example/login](https://evil.example:8443/a?b=c).");
      const [, title, label] = /title="([^"]*)" aria-label="([^"]*)"/.exec(r.html) ?? [];
      assert.equal(title, "Opens evil.example:8443\nhttps://evil.example:8443/a?b=c");
      assert.equal(label, "https://bank.example/login (opens evil.example:8443)");
      // A look-alike Unicode host shows in its ASCII (xn--) form.
      const homograph = await render("[pay](https://\u0440aypal.example/)");
      assert.match(homograph.html, /title="Opens xn--aypal-uye\.example\nhttps:\/\/xn--aypal-uye\.example\/"/);
      assert.match(homograph.html, /aria-label="pay \(opens xn--aypal-uye\.example\)"/);
      // Markup inside the text: the name is the visible text, whitespace folded; quotes are escaped.
      const rich = await render('[**Build** `log` "x"](https://ci.example/run/1)');
      assert.match(rich.html, /aria-label="Build log &quot;x&quot; \(opens ci\.example\)"/);
      const bare = await render("empty [](https://ci.example/) link");
      assert.match(bare.html, /aria-label="Link, opens ci\.example"/);
    });

    test("a mailto link names every recipient (to, cc, bcc) and says it fills in a subject or body, in its tooltip and accessible name", async () => {
      const labelled = async (markdown: string): Promise<{ title: string; label: string }> => {
        const r = await render(markdown);
        const [, title, label] = /title="([^"]*)" aria-label="([^"]*)"/.exec(r.html) ?? [];
        return { title: title ?? "", label: label ?? "" };
      };
      // The visible text and the first address look harmless; the copy and the prepared body do not.
      const sneaky = await labelled(
        "[write to support](mailto:support@corp.example,boss@corp.example?cc=audit%40corp.example&BCC=collector@evil.example&subject=Hi&body=my%20password%20is)",
      );
      const where =
        "an email to support@corp.example, boss@corp.example; cc audit@corp.example; bcc collector@evil.example; with a subject and a body";
      assert.equal(sneaky.label, `write to support (opens ${where})`);
      assert.ok(sneaky.title.startsWith(`Opens ${where}\nmailto:`), sneaky.title);
      // A to field adds recipients; '+' is part of an address, not a space; empty fields fill nothing in.
      const more = await labelled("[m](mailto:a@b.example?to=c+tag@d.example&subject=&in-reply-to=%3Cid%40x%3E)");
      assert.equal(more.label, "m (opens an email to a@b.example, c+tag@d.example; with other fields)");
      // No address at all, only a bcc; invisible characters decoded from the URL are stripped.
      const hidden = await labelled("[m](mailto:?bcc=x%E2%80%AE@evil.example&body=b)");
      assert.equal(hidden.label, "m (opens an email; bcc x@evil.example; with a body)");
      const plain = await labelled("[m](mailto:a@b.example)");
      assert.equal(plain.label, "m (opens an email to a@b.example)");
    });

    test("in the page, the accessible name of a link contains its visible text and its destination (WCAG 2.5.3)", async () => {
      const r = await render("See [the build log](https://ci.example/run/7) and [**mail** me](mailto:dev@team.example?subject=hi).");
      await strict.page.evaluate((html) => void (document.querySelector("main").innerHTML = html), r.html);
      try {
        const links = strict.page.locator("main a");
        assert.equal(await links.count(), 2);
        const first = strict.page.getByRole("link", { name: "the build log (opens ci.example)", exact: true });
        assert.equal(await first.count(), 1, "found by its accessible name");
        assert.equal(await first.innerText(), "the build log");
        assert.equal(await first.getAttribute("title"), "Opens ci.example\nhttps://ci.example/run/7");
        const second = strict.page.getByRole("link", { name: "mail me (opens an email to dev@team.example; with a subject)", exact: true });
        assert.equal(await second.count(), 1);
        assert.equal(await second.innerText(), "mail me");
        for (const l of await links.all()) {
          const visible = (await l.innerText()).trim();
          assert.ok((await l.getAttribute("aria-label"))!.startsWith(visible), "the name starts with the visible text");
        }
      } finally {
        await strict.page.evaluate(() => void (document.querySelector("main").innerHTML = ""));
      }
    });

    test("other links drop to their text", async () => {
      for (const href of [
        "javascript:alert(1)",
        "ftp://f.example/x",
        "file:///etc/passwd",
        "data:text/plain,hi",
        "/relative",
        "#top",
        "vbscript:x",
        "chrome://settings",
        "tel:123",
      ]) {
        const r = await render(`before [the text](${href}) after`);
        assert.equal(r.html, "<p>before the text after</p>", href);
      }
      const raw = await render('<a href="https://ok.example/">raw link</a>');
      assert.equal(raw.html, "<p>raw link</p>", "raw HTML links are removed too (R3)");
    });

    test("isSafeLink: http, https, mailto only, absolute only", async () => {
      const cases: Array<[string, boolean]> = [
        ["https://a.example/", true],
        ["http://a.example", true],
        ["mailto:a@b.example", true],
        ["HTTPS://A.EXAMPLE", true],
        ["javascript:alert(1)", false],
        [" javascript:alert(1)", false],
        ["java\tscript:alert(1)", false],
        ["data:text/html,x", false],
        ["vbscript:x", false],
        ["ftp://a.example", false],
        ["file:///x", false],
        ["/relative", false],
        ["//a.example/x", false],
        ["#x", false],
        ["", false],
        ["https://", false],
        ["about:blank", false],
      ];
      const got = await strict.page.evaluate(
        callIsSafeLink,
        cases.map(([h]) => h),
      );
      assert.deepEqual(
        got,
        cases.map(([, ok]) => ok),
      );
    });

    test("images are never loaded: they become their alt text", async () => {
      const r = await render('![build graph](https://evil.example/g.png) and ![](x.png) and <img src="/y.png" alt="raw alt">');
      assert.equal(r.html, "<p>build graph and  and raw alt</p>");
      const linked = await render("[![logo](https://evil.example/l.png)](https://ok.example/)");
      assert.equal(linked.html, `<p>${link("https://ok.example/", "logo", "ok.example")}</p>`);
    });

    test("raw HTML is removed except <progress>; its text stays (R3)", async () => {
      const block = await render('<div align=center>\n<b>bold</b> and <span style="color:red">red</span>\n</div>');
      assert.equal(block.html, "bold and red");
      const inline = await render("a <b>b</b> <kbd>c</kbd> <!-- hidden --> d");
      assert.equal(inline.html, "<p>a b c  d</p>");
      const scriptText = await render("x <script>alert(1)</script> y");
      assert.doesNotMatch(scriptText.html, /<script/);
    });

    test("character references render as text", async () => {
      const r = await render("AT&T &amp; &copy; &#60;b&#62; &lt;i&gt;");
      assert.equal(r.html, "<p>AT&amp;T &amp; © &lt;b&gt; &lt;i&gt;</p>");
    });

    test("R4: the first progress is pinned with its label; later ones stay in the body", async () => {
      const r = await render(
        '<progress value="12" max="30" aria-label="PRs reviewed · 12/30"></progress>\n\nReviewing.\n\n<progress value="1" max="4" aria-label="second" onclick="x" style="y"></progress>',
      );
      assert.deepEqual(r.progress, { value: 12, max: 30, label: "PRs reviewed · 12/30" });
      assert.equal(r.html, '<p>Reviewing.</p>\n<p><progress value="1" max="4" aria-label="second"></progress></p>');
      assert.equal(r.empty, false);
    });

    test("R4: values are clamped to [0, max]; max defaults to 1; numbers are never invented", async () => {
      const cases: Array<[string, RenderedNote["progress"]]> = [
        ['<progress value="40" max="30"></progress>', { value: 30, max: 30, label: null }],
        ['<progress value="-3" max="10"></progress>', { value: 0, max: 10, label: null }],
        ['<progress value="0.5"></progress>', { value: 0.5, max: 1, label: null }],
        ['<progress value="5"></progress>', { value: 1, max: 1, label: null }],
        ['<progress value="2" max="0"></progress>', { value: 1, max: 1, label: null }],
        ['<progress value="2" max="-4"></progress>', { value: 1, max: 1, label: null }],
        ['<progress value="0.25" max="abc"></progress>', { value: 0.25, max: 1, label: null }],
        ['<progress value=" 3 " max="7" aria-label="  Checks  "></progress>', { value: 3, max: 7, label: "Checks" }],
        ['<progress value="3" max="7" aria-label="   "></progress>', { value: 3, max: 7, label: null }],
        ['<progress value="1e2" max="1e3"></progress>', { value: 100, max: 1000, label: null }],
      ];
      for (const [md, expected] of cases) {
        const r = await render(md);
        assert.deepEqual(r.progress, expected, md);
        assert.equal(r.html, "", `${md}: the pinned bar leaves the body`);
        assert.equal(r.empty, false, `${md}: a progress-only note is not empty`);
      }
    });

    test("R4: a first progress without a value is indeterminate: not pinned, kept in the body", async () => {
      for (const md of ['<progress aria-label="Indexing"></progress>', '<progress value="abc" max="3" aria-label="Indexing"></progress>']) {
        const r = await render(md);
        assert.equal(r.progress, null, md);
        assert.match(r.html, /^<p><progress (max="3" )?aria-label="Indexing"><\/progress><\/p>$/, md);
        assert.equal(r.empty, false, md);
      }
    });

    test("R4: a progress inside a paragraph keeps the surrounding text, even unclosed", async () => {
      const r = await render('Status: <progress value="3" max="7" aria-label="Checks"> three done, **four** to go');
      assert.deepEqual(r.progress, { value: 3, max: 7, label: "Checks" });
      assert.equal(r.html, "<p>Status:  three done, <strong>four</strong> to go</p>");
    });

    test("C6: invisible and bidi characters are stripped, also when written as references", async () => {
      const r = await render(
        'a\u200Bb\u202Ec\uFEFFd\u{E0041}e &#x202E;f&#8203;g &ZeroWidthSpace;h [l\u2062ink](https://ok.example/\u200B) <progress value=1 max=2 aria-label="x\u200Fy"></progress>',
      );
      assert.equal(r.html, `<p>abcde fg h ${link("https://ok.example/", "link", "ok.example")} </p>`);
      assert.deepEqual(r.progress, { value: 1, max: 2, label: "xy" });
      assert.doesNotMatch(r.html, /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u206A-\u206F\uFEFF]|\uDB40[\uDC00-\uDC7F]/);
    });

    test("R5: notes without readable text are empty", async () => {
      for (const md of [
        null,
        "",
        "   \n\t",
        "\u200B\u200B\u202E",
        "<div></div>",
        "![](x.png)",
        "<!-- comment -->",
        "---",
        "<br>",
        "| |\n|-|\n| |",
        "&ZeroWidthSpace;",
        "```\n\n```",
      ]) {
        const r = await render(md);
        assert.equal(r.empty, true, JSON.stringify(md));
        assert.equal(r.progress, null, JSON.stringify(md));
        assert.equal(r.html, "", JSON.stringify(md));
      }
      const odd = await strict.page.evaluate(callRenderNoteOnValues, [42, true, {}, ["a"]]);
      for (const r of odd)
        assert.deepEqual(r, { html: "", progress: null, empty: true, line: null }, "non-strings from the wire are empty, not a crash");
    });

    test("R5: a note-only card shows its note", async () => {
      const r = await render("Waiting on **review** from the team.");
      assert.deepEqual(r, {
        html: "<p>Waiting on <strong>review</strong> from the team.</p>",
        progress: null,
        empty: false,
        line: "Waiting on review from the team.",
      });
    });

    test("the first line for a collapsed note-only card: the first line with text, plain, at most 200 characters", async () => {
      assert.equal(
        (await render("<progress value=1 max=2></progress>\n\n## Plan\n\n- one\n- two")).line,
        "Plan",
        "the pinned bar is not a line",
      );
      assert.equal((await render("---\n\n>  quoted   *text*\n> more")).line, "quoted text");
      assert.equal((await render("| a | b |\n|---|---|\n| 1 | 2 |")).line, "a · b");
      assert.equal((await render("<progress value=1 max=2></progress>")).line, null, "a bar alone has no line");
      assert.equal((await render("   ")).line, null);
      const long = await render(`**${"word ".repeat(59)}word**`);
      assert.equal(long.line, `${"word ".repeat(40).slice(0, 200)}…`);
      assert.doesNotMatch((await render("Hi <img src=x onerror=alert(1)> there")).line ?? "", /onerror|</, "plain text only");
    });

    test("N5: a collapsed card shows the tray's line (common/note-line.ts) on tricky notes", async () => {
      // Each note, and the line both must show: written out, not computed, so a change to either side shows.
      const cases: Array<[string, string | null]> = [
        ["See [the guide](https://x.test/g) and <https://x.test/a>", "See the guide and https://x.test/a"],
        ["![diagram](x.png) drawn", "diagram drawn"],
        ["```\nnpm test output\n```\nAfter the run", "After the run"],
        ["    indented output\n\nThen this", "Then this"],
        ["Run `make all` now", "Run make all now"],
        ["| Step | State |\n|---|---|\n| build | ok |", "Step · State"],
        ["<div>\n<b>Bold</b> block\n</div>", "Bold block"],
        ['<progress value="3" max="10">3 of 10</progress> Building', "Building"],
        ["<!-- hidden -->\n\nVisible", "Visible"],
        ["Setext title\n===", "Setext title"],
        ["### Plan ###\n\nbody", "Plan"],
        ["**Bold** and _em_ and ~~gone~~, 2*3*4", "Bold and em and gone, 2*3*4"],
        ["&lt;tag&gt; &amp; &#65; &nbsp;x", "<tag> & A x"],
        ["\\*literal\\* \\# hash", "*literal* # hash"],
        ["> quoted *line*\n> second", "quoted line"],
        ["- [x] done item\n- next", "done item"],
        ["[ref]: https://x.test\n\nAfter a definition", "After a definition"],
        ["```\nonly code\n```", null],
      ];
      for (const [note, line] of cases) {
        assert.equal(noteLine(note), line, `tray: ${JSON.stringify(note)}`);
        assert.equal((await render(note)).line, line, `card: ${JSON.stringify(note)}`);
      }
    });

    test("C5: an 8,192-byte note renders completely", async () => {
      const note = buildNote(8192);
      assert.equal(Buffer.byteLength(note), 8192);
      const r = await render(note);
      assert.deepEqual(r.progress, { value: 12, max: 30, label: "PRs reviewed · 12/30" });
      assert.equal(r.empty, false);
      assert.match(r.html, /<table>/);
      assert.match(r.html, /<pre><code>/);
      assert.match(r.html, /END-OF-NOTE<\/p>$/);
    });
  });

  describe("one plain line, drawn without the pipeline (issue 21: a put's short status line)", () => {
    type Md = {
      renderNote(m: string): RenderedNote;
      renderNoteThroughPipeline(m: string): RenderedNote;
      previewNote(m: string): RenderedNote & { text?: string };
    };
    /** For each note (none drawn before): whether it is a plain line, both renderings, and its preview. */
    const both = (notes: string[]) =>
      strict.page.evaluate((all: string[]) => {
        const md = (globalThis as unknown as { __markdown: Md & { isPlainLine(t: string): boolean } }).__markdown;
        return all.map((m) => {
          const preview = md.previewNote(m); // first: not in the cache yet, so previewed
          return { plain: md.isPlainLine(m), fast: md.renderNote(m), full: md.renderNoteThroughPipeline(m), preview };
        });
      }, notes);

    // Characters of ordinary status lines, and every one Markdown or HTML reads as syntax.
    const WORDS = "abcdefghijklmnopqrstuvwxyzABCÉéßÖ0123456789 ,.;:!?'\"()-+=/%$^{}\u00a0\u2028✅😀שלום";
    const SYNTAX = "\\`*_[]<>&~|#@\n\t.)";
    function seeded(seed: number): () => number {
      let x = seed;
      return () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
    }
    function randomNotes(count: number, seed: number): string[] {
      const next = seeded(seed);
      const pick = (from: string) => [...from][Math.floor(next() * [...from].length)]!;
      return Array.from({ length: count }, (_, i) => {
        const length = 1 + Math.floor(next() * 40);
        let text = "";
        for (let k = 0; k < length; k++) text += next() < 0.06 ? pick(SYNTAX) : pick(WORDS);
        // Every few notes, the openings and autolinks a plain-looking line may hide.
        const prefix = [
          "",
          "",
          "",
          "1. ",
          "2) ",
          "- ",
          "+ ",
          "www.",
          "Go to https://x.example ",
          "a@b.example ",
          "    ",
          "Step ",
          "3 tests ",
        ][i % 13]!;
        return prefix + text;
      });
    }

    test("the same paragraph, line and emptiness as marked and DOMPurify give, for every line that looks plain", async () => {
      const crafted = [
        "Tok7x note",
        "Page 12: checking the build",
        "Running the tests (3 of 7), then the report",
        "Card 41 of the start-up benchmark: paused since yesterday",
        "Deploy done \u00a0 in 40 s",
        "Line\u2028separator",
        "Émigré café — naïve 😀 ✅",
        "שלום world",
        "3 tests left",
        "1.5 s left",
        "1. not plain: a list",
        "Ab  two  spaces",
        "ends with a space ",
        "see www.example.com",
        "mail a@b.example",
        "https://example.com/x",
        "x == y != z",
        "50% done; next: {the} report?",
      ];
      const notes = [...crafted, ...randomNotes(600, 21)];
      const results = await both(notes);
      let plain = 0;
      for (const [i, r] of results.entries()) {
        assert.deepEqual(r.fast, r.full, `note ${JSON.stringify(notes[i])}: ${r.plain ? "plain path" : "pipeline"}`);
        if (!r.plain) continue;
        plain += 1;
        // The preview reads as the lexer reads the note (common/note-line.ts), on the drawn note's line.
        assert.equal(r.preview.text, noteTextOfTokens(Lexer.lex(notes[i]!, { gfm: true })), `preview of ${JSON.stringify(notes[i])}`);
        assert.equal(r.preview.line, r.full.line);
        assert.equal(r.preview.empty, false);
      }
      // The corpus exercises both paths.
      assert.ok(plain >= 60 && plain <= notes.length - 150, `${plain} of ${notes.length} notes took the plain path`);
      assert.equal(results[0]!.plain, true, "a put's status line takes the plain path");
      assert.equal(results[0]!.fast.html, "<p>Tok7x note</p>");
    });
  });

  describe("previewNote: a card's note before it is drawn (issue 21)", () => {
    type Preview = RenderedNote & { text?: string };
    const preview = (markdown: string | null): Promise<Preview> =>
      strict.page.evaluate(
        (m) => (globalThis as unknown as { __markdown: { previewNote(m: string | null): Preview } }).__markdown.previewNote(m),
        markdown,
      );

    test("plain text of every readable line, code included, agreeing with the drawn note on its line and emptiness", async () => {
      for (let i = 0; i < 12; i++) {
        const markdown = realisticNote(9000 + i);
        const p = await preview(markdown); // first: not cached yet
        assert.equal(typeof p.text, "string", `note ${i} is previewed, not drawn`);
        assert.equal(p.html, "", "a preview carries no markup");
        const drawn = await render(markdown);
        assert.equal(p.line, drawn.line, `note ${i}: the same glance line`);
        assert.equal(p.empty, drawn.empty);
        // Links read as their labels, inline code as its text, table cells and code lines all there.
        assert.match(p.text!, new RegExp(`issue ${1000 + 9000 + i}`));
        assert.doesNotMatch(p.text!, /\]\(https?:|\*\*|```/, "no Markdown syntax left");
        for (const line of p.text!.split("\n")) assert.ok(line.trim() !== "", "no blank lines");
      }
    });

    test("a cached note, one that may hold raw HTML and one with nothing readable are drawn instead", async () => {
      const cached = "Cached **already** drawn";
      await render(cached);
      assert.equal((await preview(cached)).text, undefined);
      const bar = '<progress value="3" max="4"></progress> three of four';
      const withBar = await preview(bar);
      assert.equal(withBar.text, undefined, "R4: the bar is pinned from the drawn note");
      assert.deepEqual(withBar.progress, (await render(bar)).progress);
      assert.equal((await preview("***\n\n---")).empty, true);
      assert.equal((await preview(null)).empty, true);
    });

    test("every XSS payload previews as inert text or as the sanitized drawing", async () => {
      for (const { id, markdown } of XSS_PAYLOADS) {
        const p = await preview(markdown);
        if (p.text === undefined) assert.equal(p.html, (await render(markdown)).html, `${id}: drawn as renderNote draws it`);
        else assert.equal(p.html, "", `${id}: text only`);
      }
    });
  });

  test("nothing left any page, nothing navigated", () => {
    for (const session of sessions) assertQuiet(session);
  });
});

/** A realistic note of exactly `bytes` UTF-8 bytes: progress, headings, table, list, code, links. */
function buildNote(bytes: number): string {
  const head = '<progress value="12" max="30" aria-label="PRs reviewed · 12/30"></progress>\n\n# Release review\n\n';
  const section = (i: number) =>
    `## Batch ${i}\n\nReviewed **${i * 3}** pull requests, see [the board](https://board.example/r/${i}) and <mailto:team@example.com>.\n\n` +
    `| PR | Owner | State |\n|:--|:-:|--:|\n| #${100 + i} | ana | *merged* |\n| #${200 + i} | bo | \`blocked\` |\n\n` +
    `- [x] lint\n- [ ] flaky test ${i}\n  - retry with \`--runInBand\`\n\n> Note: ~~old plan~~ new plan.\n\n` +
    "```ts\nconst batch = " +
    i +
    ";\nif (batch > 2) console.log(`batch ${batch}`);\n```\n\n";
  let note = head;
  for (let i = 1; Buffer.byteLength(note + section(i)) < bytes - 200; i++) note += section(i);
  const tail = " END-OF-NOTE";
  const room = bytes - Buffer.byteLength(note) - Buffer.byteLength(tail);
  const words = "lorem ipsum dolor sit amet ".repeat(Math.ceil(room / 27)).slice(0, room);
  return `${note}${words.trimEnd().padEnd(room, ".")}${tail}`;
}

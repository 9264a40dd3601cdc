// Agent text is data in the pages too: a card whose label, steps and note carry terminal
// control sequences (raw, and in the note also as character references) is drawn from the
// real Gateway with its words and without a single control character, in text or attributes.
/* eslint-disable no-control-regex -- the page is checked for control characters */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { chromiumAvailable } from "../browser/chromium.ts";
import type { BareClient } from "../harness/bare-client.ts";
import { card, E2eRig, openPage, type TestHost } from "./support.ts";

// Callbacks below run inside the page; the Node-side program has no DOM types.
declare const document: any;

const chromium = chromiumAvailable();
let agent: BareClient;
let th: TestHost;
let browser: Browser;

const LABEL = "Ship\x1b]0;pwned\x07 it\x9b2J\x08";
const STEP = "Run\x1b]8;;https://evil.example/\x1b\\ tests\x1b]8;;\x1b\\\x1b[2J\x07";
const NOTE = "Waiting\x1b]52;c;cm0gLXJm\x07 on\x1b[1;31m CI\x9d0;t\x9c\r\n\nchecked &#27;[2Jby&#x9b;1m hand\x1bP$qm\x1b\\";

describe("pages: agent text is data, never control characters", { skip: chromium.ok ? false : chromium.reason }, () => {
  const rig = new E2eRig();
  before(async () => {
    ({ browser, client: agent, th } = await rig.start());
  });
  after(() => rig.stop());

  test("label, steps and note full of control sequences: the card shows the words and no control character", async () => {
    const { page, context } = await openPage(browser, th.host.url, { reducedMotion: true });
    try {
      const key = (await agent.request<{ key: string }>("sessions.create", { label: LABEL })).key;
      await agent.put(key, {
        markdown: NOTE,
        plan: [
          { step: "Build", status: "completed" },
          { step: STEP, status: "in_progress" },
        ],
      });
      const c = card(page, key);
      await c.waitFor({ timeout: 15_000 });
      // The note comes with the card, the label with the session row, which can arrive later: wait for both.
      await page.waitForFunction(
        (k: string) => {
          const text = document.querySelector(`article.card[data-key*="${k}"]`)?.textContent ?? "";
          return /checked by hand/.test(text) && /Ship it/.test(text);
        },
        key,
        { timeout: 15_000 },
      );
      // Every text node and every attribute value in the card (data-key holds the session key, an id).
      const drawn: string[] = await c.evaluate((el: any) => {
        const out: string[] = [];
        const walker = el.ownerDocument.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) out.push(n.nodeValue ?? "");
        for (const e of [el, ...el.querySelectorAll("*")]) for (const a of e.attributes) if (a.name !== "data-key") out.push(a.value);
        return out;
      });
      const bad = drawn.filter((t) => /[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(t));
      assert.deepEqual(bad, [], "no control character but tab and LF in any text or attribute");
      const text = (await c.textContent()) ?? "";
      assert.match(text, /Ship it/);
      assert.match(text, /Run tests/);
      assert.match(text, /Waiting on CI/);
      assert.doesNotMatch(text, /\]0;|\]52;|\]8;|\[2J|\[1;31m|P\$qm/, "no sequence left behind as text");
    } finally {
      await context.close();
    }
  });
});

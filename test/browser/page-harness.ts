// Code that runs inside the test page (passed to page.evaluate / addInitScript, so every
// function here is self-contained: no imports, no module-level values). The root tsconfig has
// no DOM library, so the few DOM members used are typed below, by hand.
import type { RenderedNote } from "../../renderer/lib/markdown-types.ts";

// ---------------------------------------------------------------------------------------
// Minimal DOM typing

interface PAttr {
  readonly name: string;
  readonly value: string;
}

interface PEvent {
  readonly type: string;
  readonly target: unknown;
  readonly violatedDirective?: string;
  readonly blockedURI?: string;
  readonly message?: string;
  preventDefault(): void;
}

type PEventConstructor = new (type: string, init?: { bubbles?: boolean; cancelable?: boolean }) => PEvent;

interface PElement {
  readonly localName: string;
  readonly namespaceURI: string | null;
  readonly attributes: ArrayLike<PAttr>;
  innerHTML: string;
  getAttribute(name: string): string | null;
  querySelector(selectors: string): PElement | null;
  querySelectorAll(selectors: string): ArrayLike<PElement>;
  closest(selectors: string): PElement | null;
  dispatchEvent(event: PEvent): boolean;
  append(...nodes: PElement[]): void;
  remove(): void;
  setAttribute(name: string, value: string): void;
  addEventListener(type: string, listener: () => void, options?: { once?: boolean }): void;
  readonly complete?: boolean;
}

interface PDocument {
  readonly documentElement: PElement & { dataset: Record<string, string | undefined> };
  readonly body: PElement;
  readonly baseURI: string;
  createElement(tag: string): PElement;
  querySelectorAll(selectors: string): ArrayLike<PElement>;
  addEventListener(type: string, listener: (event: PEvent) => void, capture?: boolean): void;
}

export type HarnessLog = {
  /** Calls of the __xss tripwire. */
  xss: string[];
  /** alert / confirm / prompt / print calls. */
  dialogs: string[];
  /** Content-Security-Policy violations: "directive blocked-uri" (the harness's own sentinels excluded). */
  violations: string[];
  /** Ids of the harness's sentinel elements whose CSP violation has been delivered. */
  sentinels: string[];
  /** hrefs of clicked links (every click is prevented, as the app does). */
  clicks: string[];
  submits: number;
  /** window.open calls. */
  opens: string[];
  /** Uncaught errors in the page. */
  errors: string[];
};

export type MarkdownModule = {
  renderNote(markdown: string | null): RenderedNote;
  isSafeLink(href: string): boolean;
};

interface PWindow {
  document: PDocument;
  location: { href: string };
  Event: PEventConstructor;
  MouseEvent: PEventConstructor;
  FocusEvent: PEventConstructor;
  setTimeout(fn: () => void, ms: number): number;
  requestAnimationFrame(fn: () => void): number;
  performance: { now(): number };
  addEventListener(type: string, listener: (event: PEvent) => void, capture?: boolean): void;
  alert: (...args: unknown[]) => unknown;
  confirm: (...args: unknown[]) => unknown;
  prompt: (...args: unknown[]) => unknown;
  print: (...args: unknown[]) => unknown;
  open: (...args: unknown[]) => unknown;
  __xss?: (...args: unknown[]) => void;
  __log?: HarnessLog;
  __markdown?: MarkdownModule;
}

// ---------------------------------------------------------------------------------------
// Tripwires (installed before the page's own script)

export function installTripwires(): void {
  const w = globalThis as unknown as PWindow;
  const log: HarnessLog = { xss: [], dialogs: [], violations: [], sentinels: [], clicks: [], submits: 0, opens: [], errors: [] };
  w.__log = log;
  w.__xss = (...args: unknown[]) => {
    log.xss.push(args.map(String).join(",") || "called");
  };
  for (const name of ["alert", "confirm", "prompt", "print"] as const) {
    w[name] = (...args: unknown[]) => {
      log.dialogs.push(`${name}(${args.map(String).join(",")})`);
      return null;
    };
  }
  w.open = (...args: unknown[]) => {
    log.opens.push(String(args[0]));
    return null;
  };
  w.document.addEventListener(
    "securitypolicyviolation",
    (event) => {
      const target = event.target as PElement | null;
      const sentinel = typeof target?.getAttribute === "function" ? target.getAttribute("data-harness-sentinel") : null;
      if (sentinel !== null) log.sentinels.push(sentinel);
      else log.violations.push(`${event.violatedDirective ?? "?"} ${event.blockedURI ?? ""}`);
    },
    true,
  );
  // The app intercepts every click on a link and hands the URL to the shell; here, record it.
  w.addEventListener(
    "click",
    (event) => {
      const target = event.target as PElement | null;
      const link = typeof target?.closest === "function" ? target.closest("a") : null;
      if (link) log.clicks.push(link.getAttribute("href") ?? "(no href)");
      event.preventDefault();
    },
    true,
  );
  w.addEventListener(
    "submit",
    (event) => {
      log.submits++;
      event.preventDefault();
    },
    true,
  );
  // Uncaught errors only (they are dispatched at the window; the test's own synthetic
  // "error" events target elements).
  w.addEventListener("error", (event) => {
    if (event.target === (w as unknown)) log.errors.push(String(event.message ?? event.type));
  });
}

// ---------------------------------------------------------------------------------------
// The XSS run: render, insert with innerHTML, shake out handlers, inspect.

export type BatchInput = {
  items: ReadonlyArray<{ id: string; markdown: string }>;
  /** Insert `markdown` as HTML without rendering it (oracle check only). */
  raw: boolean;
  /** Allowed element → allowed attributes; anything else is a finding. */
  allowed: Readonly<Record<string, readonly string[]>>;
  /** The page forbids inline styles (style-src without 'unsafe-inline'), so a CSP sentinel can be used. */
  strictCsp: boolean;
};

export type BatchResult = { id: string; problems: string[]; html: string };

export type BatchOutput = {
  results: BatchResult[];
  /**
   * CSP violations while the rendered HTML was live in the page. (Chromium also reports
   * inline handlers it meets while DOMPurify parses a payload into its inert document; those
   * are not counted: nothing can run there.)
   */
  liveViolations: string[];
};

export async function runBatch(input: BatchInput): Promise<BatchOutput> {
  const w = globalThis as unknown as PWindow;
  const doc = w.document;
  const md = w.__markdown;
  const log = w.__log;
  if (!log) throw new Error("tripwires not installed");
  const host = doc.body.querySelector("main") ?? doc.body;
  const macrotask = () => new Promise<void>((resolve) => w.setTimeout(resolve, 0));
  const frame = () => new Promise<void>((resolve) => w.requestAnimationFrame(() => resolve()));
  // Each wait below ends on an event that proves the period passed; the ceiling only keeps a
  // broken page from hanging the run (it then fails, naming the event that never came).
  const CEILING_MS = 10_000;
  const waitFor = (what: string, done: () => boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      const started = w.performance.now();
      const poll = () => {
        if (done()) resolve();
        else if (w.performance.now() - started > CEILING_MS) reject(new Error(`page harness: no ${what} within ${CEILING_MS} ms`));
        else w.setTimeout(poll, 5);
      };
      poll();
    });
  let sentinelSeq = 0;
  /**
   * Waits until every CSP violation queued so far has been delivered: a sentinel element with an
   * inline style (forbidden by the strict CSP) is inserted last, and violation reports are
   * delivered as tasks in order, so once its report arrives the earlier ones have too.
   */
  const drainViolations = async (): Promise<void> => {
    if (!input.strictCsp) return;
    const id = `s${++sentinelSeq}-${w.performance.now()}`;
    const sentinel = doc.createElement("span");
    sentinel.setAttribute("data-harness-sentinel", id);
    host.append(sentinel);
    sentinel.setAttribute("style", "color: inherit");
    try {
      await waitFor("sentinel violation", () => log.sentinels.includes(id));
    } finally {
      sentinel.remove();
    }
  };
  /** Images the payloads inserted whose load or error event (and so its handler) has not run yet. */
  let loading = 0;
  const watchImages = (container: PElement) => {
    for (const image of Array.from(container.querySelectorAll("img"))) {
      if (image.complete === true) continue; // no request (no src, or already decided)
      loading++;
      let done = false;
      const finish = () => {
        if (!done) loading--;
        done = true;
      };
      image.addEventListener("load", finish, { once: true });
      image.addEventListener("error", finish, { once: true });
    }
  };
  /** Two frames and a task for the DOM's own async work, every image decided, then every CSP report delivered. */
  const settle = async (): Promise<void> => {
    await frame();
    await frame();
    await macrotask();
    await waitFor("image load/error", () => loading === 0);
    await macrotask();
    await drainViolations();
  };

  const XHTML = "http://www.w3.org/1999/xhtml";
  const DANGEROUS_URL = /^(?:javascript|vbscript|data):/i;
  // eslint-disable-next-line no-control-regex -- control characters are dropped before the scheme check, as browsers do
  const compact = (value: string) => value.replace(/[\u0000-\u0020\u007f-\u009f\s]+/g, "");
  const events = [
    "focus",
    "focusin",
    "blur",
    "load",
    "error",
    "toggle",
    "click",
    "dblclick",
    "mouseover",
    "mouseenter",
    "pointerover",
    "pointerenter",
    "animationstart",
    "transitionend",
    "input",
    "change",
    "copy",
    "beforetoggle",
  ];

  // 1. Render everything.
  const entries = input.items.map(({ id, markdown }) => {
    const problems: string[] = [];
    let html = "";
    try {
      if (input.raw) {
        html = markdown;
      } else {
        if (!md) throw new Error("markdown module not loaded");
        const note = md.renderNote(markdown);
        html = note.html;
        if (typeof note.html !== "string" || typeof note.empty !== "boolean") problems.push("malformed result");
        const p = note.progress;
        if (p !== null) {
          const ok =
            Number.isFinite(p.value) &&
            Number.isFinite(p.max) &&
            p.max > 0 &&
            p.value >= 0 &&
            p.value <= p.max &&
            (p.label === null || typeof p.label === "string");
          if (!ok) problems.push(`bad progress ${JSON.stringify(p)}`);
        }
      }
    } catch (error) {
      problems.push(`renderNote threw: ${String(error)}`);
    }
    return { id, container: doc.createElement("div"), problems, html };
  });
  // Violations Chromium reports while DOMPurify parses into its inert document are delivered now.
  await drainViolations();
  const mark = log.violations.length;

  // 2. Insert as Svelte's {@html} does, then shake out handlers.
  for (const entry of entries) {
    host.append(entry.container);
    entry.container.innerHTML = entry.html;
    if (!input.raw && entry.container.innerHTML !== entry.html) entry.problems.push("serialization not stable after re-parse");
    watchImages(entry.container);
  }
  await settle();
  for (const { container } of entries) {
    for (const element of Array.from(container.querySelectorAll("*"))) {
      for (const type of events) {
        const Ctor =
          type.includes("click") || type.startsWith("mouse")
            ? w.MouseEvent
            : type.startsWith("focus") || type === "blur"
              ? w.FocusEvent
              : w.Event;
        element.dispatchEvent(new Ctor(type, { bubbles: true, cancelable: true }));
      }
    }
  }
  await settle();

  // 3. Inspect.
  const results: BatchResult[] = [];
  for (const { id, container, problems, html } of entries) {
    for (const element of Array.from(container.querySelectorAll("*"))) {
      const tag = element.localName;
      if (element.namespaceURI !== XHTML) problems.push(`foreign element ${element.namespaceURI} ${tag}`);
      const allowedAttrs = Object.hasOwn(input.allowed, tag) ? input.allowed[tag] : undefined;
      if (allowedAttrs === undefined) problems.push(`element <${tag}> not allowed`);
      for (const attr of Array.from(element.attributes)) {
        const name = attr.name.toLowerCase();
        if (name.startsWith("on")) problems.push(`handler ${name} on <${tag}>`);
        else if (allowedAttrs !== undefined && !allowedAttrs.includes(name)) problems.push(`attribute ${name} on <${tag}>`);
        if (DANGEROUS_URL.test(compact(attr.value))) problems.push(`dangerous URL in ${name} on <${tag}>: ${attr.value}`);
      }
      if (tag === "a") {
        const href = element.getAttribute("href");
        if (href === null) problems.push("link without href (should be text)");
        else {
          let protocol: string;
          try {
            protocol = new URL(href).protocol;
          } catch {
            protocol = "(relative)";
          }
          if (!["http:", "https:", "mailto:"].includes(protocol)) problems.push(`link protocol ${protocol}`);
        }
        if (element.getAttribute("rel") !== "noopener noreferrer") problems.push(`link rel=${element.getAttribute("rel")}`);
      }
    }
    results.push({ id, problems, html });
    container.remove();
  }
  return { results, liveViolations: log.violations.slice(mark) };
}

/** Page-level leftovers a payload could have planted outside its container. */
export function pageState(): { href: string; baseURI: string; scripts: number; headExtras: number; ready: boolean } {
  const w = globalThis as unknown as PWindow;
  const doc = w.document;
  return {
    href: w.location.href,
    baseURI: doc.baseURI,
    scripts: doc.querySelectorAll("script").length,
    headExtras: doc.querySelectorAll("base, meta[http-equiv], style, link:not([rel=icon]), iframe, object, embed, form").length,
    ready: doc.documentElement.dataset["ready"] === "1",
  };
}

export function readLog(): HarnessLog {
  const w = globalThis as unknown as PWindow;
  if (!w.__log) throw new Error("tripwires not installed");
  return JSON.parse(JSON.stringify(w.__log)) as HarnessLog;
}

// ---------------------------------------------------------------------------------------
// Plain calls into the bundled module

export function callRenderNote(markdown: string | null): RenderedNote {
  const md = (globalThis as unknown as PWindow).__markdown;
  if (!md) throw new Error("markdown module not loaded");
  return md.renderNote(markdown);
}

/** renderNote on values of the wrong type, as a malformed wire message could carry. */
export function callRenderNoteOnValues(values: readonly unknown[]): RenderedNote[] {
  const md = (globalThis as unknown as PWindow).__markdown;
  if (!md) throw new Error("markdown module not loaded");
  return values.map((value) => md.renderNote(value as string));
}

export function pageReady(): boolean {
  return (globalThis as unknown as PWindow).document.documentElement.dataset["ready"] === "1";
}

export function callIsSafeLink(hrefs: readonly string[]): boolean[] {
  const md = (globalThis as unknown as PWindow).__markdown;
  if (!md) throw new Error("markdown module not loaded");
  return hrefs.map((href) => md.isSafeLink(href));
}

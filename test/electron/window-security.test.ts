// The Electron security checklist (main/electron/window-security.ts): web preferences, locked navigation and window opening, and a session that refuses every permission and all network but app://. A FAKE webContents and a FAKE session stand in for Electron.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Session, WebContents } from "electron";
import {
  isAllowedRequest,
  lockNavigation,
  lockSession,
  secureWebPreferences,
  type LockableSession,
  type NavigationTarget,
} from "../../main/electron/window-security.ts";
import { fakeEvent, FakeWebContents } from "./fake-electron.ts";

function locked(): { contents: FakeWebContents; opened: string[] } {
  const contents = new FakeWebContents();
  const opened: string[] = [];
  lockNavigation(contents as unknown as NavigationTarget & WebContents, (url) => opened.push(url));
  return { contents, opened };
}

const SAFE = ["https://example.com/docs?q=1#x", "http://example.com/", "mailto:someone@example.com", "HTTPS://EXAMPLE.COM/upper"];
const UNSAFE = [
  "javascript:alert(1)",
  "JavaScript:alert(1)",
  "file:///etc/passwd",
  "app://desk/settings.html",
  "app://evil/",
  "data:text/html,<script>alert(1)</script>",
  "about:blank",
  "ftp://example.com/",
  "ws://example.com/",
  "https:example.com",
  " https://example.com/",
  "vbscript:msgbox(1)",
];

describe("secureWebPreferences", () => {
  test("isolated, sandboxed, no Node, no webview, throttled", () => {
    assert.deepEqual(secureWebPreferences("/app/dist/preload/preload.cjs"), {
      preload: "/app/dist/preload/preload.cjs",
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      safeDialogs: true,
      backgroundThrottling: true,
    });
  });

  test("each call returns a fresh object (one window cannot loosen another's)", () => {
    const a = secureWebPreferences("p");
    const b = secureWebPreferences("p");
    assert.notEqual(a, b);
    a.sandbox = false;
    assert.equal(b.sandbox, true);
  });
});

describe("lockNavigation", () => {
  test("listens once to each navigation event and sets one window-open handler", () => {
    const { contents } = locked();
    assert.deepEqual([...contents.listeners.keys()].sort(), ["will-attach-webview", "will-navigate", "will-redirect"]);
    for (const event of contents.listeners.keys()) assert.equal(contents.listenerCount(event), 1, event);
    assert.equal(contents.openHandlerSets, 1);
  });

  test("navigating to a web or mail link is prevented and opened in the system browser", () => {
    for (const url of SAFE) {
      const { contents, opened } = locked();
      assert.equal(contents.navigate(url), true, url);
      assert.deepEqual(opened, [url]);
    }
  });

  test("navigating anywhere else is prevented and nothing is opened", () => {
    const { contents, opened } = locked();
    for (const url of UNSAFE) assert.equal(contents.navigate(url), true, url);
    assert.deepEqual(opened, []);
  });

  test("redirects and webview attachment are always prevented, opening nothing", () => {
    const { contents, opened } = locked();
    const redirect = fakeEvent({ url: "https://example.com/" });
    contents.emit("will-redirect", redirect, "https://example.com/");
    assert.equal(redirect.defaultPrevented, true);
    const redirectApp = fakeEvent({ url: "app://desk/popover.html" });
    contents.emit("will-redirect", redirectApp, "app://desk/popover.html");
    assert.equal(redirectApp.defaultPrevented, true);
    const attach = fakeEvent();
    contents.emit("will-attach-webview", attach, { src: "https://example.com/" }, {});
    assert.equal(attach.defaultPrevented, true);
    assert.deepEqual(opened, []);
  });

  test("window.open is always denied; only http, https and mailto go to the browser", () => {
    const { contents, opened } = locked();
    for (const url of [...SAFE, ...UNSAFE]) assert.deepEqual(contents.open(url), { action: "deny" }, url);
    assert.deepEqual(opened, SAFE);
  });
});

type RequestHandler = (contents: unknown, permission: string, callback: (granted: boolean) => void, details: unknown) => void;
type CheckHandler = (contents: unknown, permission: string, origin: string, details: unknown) => boolean;
type DeviceHandler = (details: unknown) => boolean;
type BeforeRequest = (details: { url: string }, callback: (response: { cancel?: boolean }) => void) => void;
type FakeSession = {
  request: RequestHandler | null;
  check: CheckHandler | null;
  device: DeviceHandler | null;
  beforeRequest: BeforeRequest | null;
};

/** A FAKE session: keeps the handlers lockSession installs. */
function fakeSession(): FakeSession {
  const s: FakeSession = { request: null, check: null, device: null, beforeRequest: null };
  const session = {
    setPermissionRequestHandler: (h: RequestHandler) => void (s.request = h),
    setPermissionCheckHandler: (h: CheckHandler) => void (s.check = h),
    setDevicePermissionHandler: (h: DeviceHandler) => void (s.device = h),
    webRequest: { onBeforeRequest: (h: BeforeRequest) => void (s.beforeRequest = h) },
  };
  lockSession(session as unknown as LockableSession & Session);
  return s;
}

describe("lockSession", () => {
  test("every permission request is answered false, exactly once", () => {
    const s = fakeSession();
    assert.ok(s.request);
    for (const permission of ["media", "notifications", "geolocation", "clipboard-read", "openExternal", "fullscreen"]) {
      const answers: boolean[] = [];
      s.request({}, permission, (granted) => answers.push(granted), { requestingUrl: "app://desk/popover.html" });
      assert.deepEqual(answers, [false], permission);
    }
  });

  test("permission checks and device permissions are refused", () => {
    const s = fakeSession();
    assert.ok(s.check && s.device);
    for (const permission of ["media", "notifications", "clipboard-sanitized-write", "hid"]) {
      assert.equal(s.check({}, permission, "app://desk", {}), false, permission);
    }
    assert.equal(s.device({ deviceType: "usb", origin: "app://desk" }), false);
    assert.equal(s.device({ deviceType: "hid", origin: "app://desk" }), false);
  });

  test("requests to the network or the disk are cancelled; app:// and DevTools pass", () => {
    const s = fakeSession();
    assert.ok(s.beforeRequest);
    const answer = (url: string): { cancel?: boolean }[] => {
      const out: { cancel?: boolean }[] = [];
      s.beforeRequest!({ url }, (r) => out.push(r));
      return out;
    };
    for (const url of [
      "https://example.com/",
      "http://127.0.0.1:18789/",
      "file:///etc/passwd",
      "ws://127.0.0.1:18789/",
      "wss://gateway.example/",
      "ftp://example.com/",
      "chrome-extension://abc/x.js",
      "application://desk/",
      "app:/desk",
    ]) {
      assert.deepEqual(answer(url), [{ cancel: true }], url);
    }
    for (const url of ["app://desk/popover.html", "app://desk/assets/app.js", "devtools://devtools/bundled/inspector.html"]) {
      assert.deepEqual(answer(url), [{ cancel: false }], url);
    }
  });

  test("isAllowedRequest matches the session filter", () => {
    assert.equal(isAllowedRequest("app://desk/x"), true);
    assert.equal(isAllowedRequest("devtools://devtools/"), true);
    assert.equal(isAllowedRequest("https://app://desk"), false);
    assert.equal(isAllowedRequest(""), false);
  });
});

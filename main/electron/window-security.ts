// The Electron security checklist, applied in one place to every window and session:
// isolated, sandboxed renderers without Node; no navigation, no new windows, no
// permissions, no network but the app's own scheme; links go to the system browser only
// when they are http, https or mailto.
import type { BrowserWindowConstructorOptions, Session, WebContents } from "electron";
import { isSafeExternalUrl } from "../../common/contract.ts";
import { APP_SCHEME } from "./app-protocol.ts";

export function secureWebPreferences(preload: string): NonNullable<BrowserWindowConstructorOptions["webPreferences"]> {
  return {
    preload,
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
    // Hidden windows must cost nothing (anchors §5): keep Chromium's throttling on.
    backgroundThrottling: true,
  };
}

export type NavigationTarget = Pick<WebContents, "on" | "setWindowOpenHandler">;

/**
 * No page ever navigates or opens a window: a link click becomes an external open when
 * its URL is safe, everything else is dropped.
 */
export function lockNavigation(contents: NavigationTarget, openExternal: (url: string) => void): void {
  const deny = (event: { preventDefault(): void }, url: string): void => {
    event.preventDefault();
    if (isSafeExternalUrl(url)) openExternal(url);
  };
  contents.on("will-navigate", (event) => deny(event, event.url));
  contents.on("will-redirect", (event) => event.preventDefault());
  contents.on("will-attach-webview", (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isSafeExternalUrl(url)) openExternal(url);
    return { action: "deny" };
  });
}

export type LockableSession = Pick<Session, "setPermissionRequestHandler" | "setPermissionCheckHandler" | "setDevicePermissionHandler"> & {
  webRequest: Pick<Session["webRequest"], "onBeforeRequest">;
};

/** Every permission is refused, and nothing but `app://` and DevTools may be fetched. */
export function lockSession(session: LockableSession): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
  session.webRequest.onBeforeRequest((details, callback) => {
    callback({ cancel: !isAllowedRequest(details.url) });
  });
}

export function isAllowedRequest(url: string): boolean {
  return url.startsWith(`${APP_SCHEME}://`) || url.startsWith("devtools://");
}

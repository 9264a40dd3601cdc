// The Electron entry point: the one main-process file that imports `electron` (and
// electron-store, which needs it). It only wires the real modules into the shell.
import {
  app,
  BrowserWindow,
  clipboard,
  globalShortcut,
  ipcMain,
  Menu,
  nativeTheme,
  Notification,
  powerMonitor,
  protocol,
  safeStorage,
  screen,
  session,
  shell,
  Tray,
} from "electron";
import electronLog from "electron-log/main";
import Store from "electron-store";
import { join } from "node:path";
import { isSafeExternalUrl } from "../../common/contract.ts";
import { appVersion, packageRoot } from "../core/version.ts";
import { APP_SCHEME, appResponse } from "./app-protocol.ts";
import { fileLogger } from "./log-file.ts";
import { startShell, type Shell } from "./shell.ts";
import { openSettingsFile } from "./settings-file.ts";
import { buildTestHooks, testHooksEnabled } from "./test-hooks.ts";
import { electronUpdater } from "./updater.ts";
import { lockNavigation, lockSession } from "./window-security.ts";

const root = packageRoot();
// Tests and side-by-side installs keep their data apart.
if (process.env.PROGRESS_DESK_HOME) app.setPath("userData", process.env.PROGRESS_DESK_HOME);
// The log file: under the OS's logs folder (a test home keeps its own). Everything else gets this logger injected.
const logsDir = process.env.PROGRESS_DESK_HOME ? join(process.env.PROGRESS_DESK_HOME, "logs") : app.getPath("logs");
const { logger } = fileLogger(electronLog, {
  logsDir,
  level: process.env.PROGRESS_DESK_DEBUG === "1" ? "debug" : "info",
  console: !app.isPackaged,
});
logger.info("Progress Desk starting", { version: appVersion(), electron: process.versions.electron, platform: process.platform });

// Before ready: the pages' scheme is a standard, secure origin (not file://).
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true } }]);

if (!app.requestSingleInstanceLock()) {
  // A second launch must not add a second tray icon: the first instance opens its popover.
  app.quit();
} else {
  let running: Shell | null = null;
  app.on("second-instance", () => void running?.openPage("popover"));
  // A menu-bar app: closing every window must not quit it.
  app.on("window-all-closed", () => undefined);
  // Any web contents created anywhere cannot navigate or open windows. Our own windows get
  // the lock that also opens safe links from the shell; opening here too would open twice.
  app.on("web-contents-created", (_event, contents) => lockNavigation(contents, () => undefined));
  app.on("before-quit", (event) => {
    if (!running || running.isQuitting()) return;
    event.preventDefault();
    const shell = running;
    void shell.shutdown().finally(() => app.quit());
  });

  void app.whenReady().then(async () => {
    // No Dock icon (LSUIElement does this for the packaged app; this covers `npm start`).
    app.dock?.hide();
    lockSession(session.defaultSession);
    const pagesDir = join(root, "dist", "renderer");
    protocol.handle(APP_SCHEME, async (request) => {
      const r = await appResponse(request.url, pagesDir, request.method);
      return new Response(r.body.length === 0 ? null : new Uint8Array(typeof r.body === "string" ? Buffer.from(r.body) : r.body), {
        status: r.status,
        headers: r.headers,
      });
    });
    const store = openSettingsFile((options) => new Store<Record<string, unknown>>(options), app.getPath("userData"), { logger });
    running = await startShell({
      platform: process.platform,
      env: process.env,
      dataDir: app.getPath("userData"),
      pagesDir,
      preloadPath: join(root, "dist", "preload", "preload.cjs"),
      assetsDir: join(root, "assets"),
      clientVersion: appVersion(),
      store,
      safeStorage,
      createTray: (icon) => new Tray(icon),
      buildMenu: (template) => Menu.buildFromTemplate(template),
      createWindow: (options) => new BrowserWindow(options),
      screen,
      ipcMain,
      createNotification: (options) => new Notification(options),
      notificationsSupported: () => Notification.isSupported(),
      openExternal,
      powerMonitor,
      nativeTheme,
      globalShortcut,
      setLoginItem: (openAtLogin) => {
        if (app.isPackaged) app.setLoginItemSettings({ openAtLogin });
      },
      quit: () => app.quit(),
      warn: (message) => logger.warn(message),
      logger,
      logFolder: logsDir,
      openPath: (path) => shell.openPath(path),
      writeClipboard: (text) => clipboard.writeText(text),
      // electron-updater itself is required only if the shell creates the updater.
      updater: electronUpdater({
        platform: process.platform,
        env: process.env,
        isPackaged: app.isPackaged,
        resourcesPath: process.resourcesPath,
        appRoot: root,
        logger,
      }),
    });
    if (testHooksEnabled(process.env, app.isPackaged)) {
      const shell = running;
      (globalThis as Record<string, unknown>).__progressDesk = buildTestHooks(shell, async () => {
        await shell.shutdown();
        app.quit();
      });
    }
  });
}

async function openExternal(url: string): Promise<void> {
  if (isSafeExternalUrl(url)) await shell.openExternal(url);
}

// The pages' side of the shell: the desk service that answers every verb, reached over IPC
// only from a top-level frame of one of our own windows (ipc.ts checks each call's
// sender), and its events sent to every open window. A page's refresh or dismiss is the
// person's own action, which the notifications then leave unsaid.
import type { IpcMain, WebContents } from "electron";
import type { CardRef, Page } from "../../../common/contract.ts";
import { createDeskService, type DeskService, type DeskServiceOptions } from "../../core/desk-service.ts";
import { broadcast, registerIpc } from "../ipc.ts";
import type { Windows } from "./windows.ts";

export type PagesContext = Pick<
  DeskServiceOptions,
  "desk" | "settings" | "discovered" | "logger" | "versions" | "clientVersion" | "updates"
> & {
  ipcMain: Pick<IpcMain, "handle" | "removeHandler">;
  windows: Pick<Windows, "contents" | "isOurContents">;
  openPage: (page: Page, card?: CardRef) => Promise<void>;
  /** Hides the popover (Escape in it). */
  closePopover?: () => void;
  /** Opens a link in the system browser (the service has checked it is safe). */
  openExternal: (url: string) => Promise<void>;
  /** The person acted on this card from a page. */
  onOwnAction: (card: CardRef) => void;
  warn: (message: string) => void;
  /** Puts text on the clipboard ("Copy diagnostics": the pages have no clipboard permission). */
  writeClipboard?: (text: string) => void;
};

export type Pages = { service: DeskService; dispose(): void };

export function setupPages(ctx: PagesContext): Pages {
  const service = createDeskService({
    desk: ctx.desk,
    settings: ctx.settings,
    discovered: ctx.discovered,
    openExternal: async (url) => {
      await ctx.openExternal(url);
      return true;
    },
    openPage: ctx.openPage,
    ...(ctx.closePopover ? { closePopover: ctx.closePopover } : {}),
    ...(ctx.logger ? { logger: ctx.logger } : {}),
    ...(ctx.versions ? { versions: ctx.versions } : {}),
    ...(ctx.clientVersion !== undefined ? { clientVersion: ctx.clientVersion } : {}),
    ...(ctx.writeClipboard ? { copyText: ctx.writeClipboard } : {}),
    ...(ctx.updates ? { updates: ctx.updates } : {}),
  });
  const isOurContents = (contents: WebContents): boolean => ctx.windows.isOurContents(contents);
  const unregisterIpc = registerIpc({ ipcMain: ctx.ipcMain, service, isOurContents, onOwnAction: ctx.onOwnAction, warn: ctx.warn });
  const unsubscribe = service.subscribe((event) => broadcast(ctx.windows.contents(), event));
  return {
    service,
    dispose() {
      unsubscribe();
      unregisterIpc();
    },
  };
}

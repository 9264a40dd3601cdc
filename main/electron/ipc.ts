// The contract over Electron IPC: one `handle` per verb, each call checked against the
// sender (a top-level frame of one of our windows, showing our own origin) and against
// the contract's argument rules (desk-service), then answered by the same service the
// browser host uses. The page a call comes from is read from that checked frame's URL,
// never from anything the page sends: some verbs are the Settings page's alone.
// Events go only to our windows.
import type { IpcMain, IpcMainInvokeEvent, WebContents } from "electron";
import { channelFor, DESK_METHODS, EVENT_CHANNEL, type CardRef, type DeskEvent, type Page } from "../../common/contract.ts";
import type { DeskService } from "../core/desk-service.ts";
import { DeskError, ERROR_CODES } from "../../common/errors.ts";
import { isAppUrl } from "./app-protocol.ts";
import { pageOfPath, ROOT_PAGE } from "../../common/pages.ts";

export type SenderEvent = Pick<IpcMainInvokeEvent, "sender" | "senderFrame">;

/** True for a top-level frame of one of our windows that shows our own origin. */
export function isTrustedSender(event: SenderEvent, isOurContents: (contents: WebContents) => boolean): boolean {
  const frame = event.senderFrame;
  if (!frame || frame.parent !== null) return false;
  if (!isAppUrl(frame.url)) return false;
  return isOurContents(event.sender);
}

/** Which of our pages a trusted frame shows, from its URL's path; null for anything else. */
export function pageOfSender(event: SenderEvent): Page | null {
  const url = event.senderFrame?.url;
  if (!url) return null;
  try {
    const path = new URL(url).pathname;
    return path === "/" ? ROOT_PAGE : pageOfPath(path); // app://desk/ serves the root page (page-files)
  } catch {
    return null;
  }
}

export type IpcOptions = {
  ipcMain: Pick<IpcMain, "handle" | "removeHandler">;
  service: Pick<DeskService, "call">;
  isOurContents: (contents: WebContents) => boolean;
  /** The person acted on a card here (dismiss, refresh): the notification policy skips it (N2). */
  onOwnAction?: (card: CardRef) => void;
  warn?: (message: string) => void;
};

function isCardRef(v: unknown): v is CardRef {
  const r = v as Partial<CardRef> | null;
  return !!r && typeof r === "object" && typeof r.gatewayId === "string" && typeof r.sessionKey === "string";
}

/** Registers every verb; returns a function that removes them again. */
export function registerIpc(opts: IpcOptions): () => void {
  for (const method of DESK_METHODS) {
    opts.ipcMain.handle(channelFor(method), async (event, ...args: unknown[]) => {
      const caller = isTrustedSender(event, opts.isOurContents) ? pageOfSender(event) : null;
      if (caller === null) {
        opts.warn?.(`Progress Desk refused "${method}" from an untrusted frame (${event.senderFrame?.url ?? "no frame"}).`);
        throw new DeskError(ERROR_CODES.untrustedSender, "Refused: this frame may not talk to Progress Desk.");
      }
      // Noted before the call: the card changes it causes arrive while it runs.
      if ((method === "dismiss" || method === "refresh") && isCardRef(args[0])) opts.onOwnAction?.(args[0]);
      return opts.service.call(method, args, caller);
    });
  }
  return () => {
    for (const method of DESK_METHODS) opts.ipcMain.removeHandler(channelFor(method));
  };
}

/** Sends one contract event to every live window of ours. */
export function broadcast(contents: Iterable<Pick<WebContents, "send" | "isDestroyed">>, event: DeskEvent): void {
  for (const c of contents) if (!c.isDestroyed()) c.send(EVENT_CHANNEL, event);
}

// The page contract in a browser: the verbs from the contract's one proxy builder
// (common/desk-proxy.ts) over the host's socket (host-transport.ts). Pages in a browser are
// already in the system browser, so links open in a new tab (noopener) and pages switch in place.
import type { DeskApi, Page } from "../../common/contract.ts";
import { isSafeExternalUrl } from "../../common/verbs.ts";
import { buildDeskApi } from "../../common/desk-proxy.ts";
import type { DeskSnapshot } from "../../common/model.ts";
import { cardSessionLink, needPageLink } from "../../common/session-link.ts";
import { hostTransport } from "./host-transport.ts";
import { pagePath } from "../../common/pages.ts";

/** The page's API in a browser: every verb over the host socket but the four a browser page does itself. */
export function connectHostBridge(loc: Pick<Location, "pathname" | "protocol" | "host" | "assign"> = window.location): DeskApi {
  const transport = hostTransport(loc);
  return buildDeskApi(transport, {
    async openExternal(href) {
      if (!isSafeExternalUrl(href)) return false;
      window.open(href, "_blank", "noopener,noreferrer");
      return true;
    },
    async openSession(card) {
      // The same link main builds (no secret in it), from the host's Gateway URLs; a new tab like any link.
      const snapshot = (await transport.invoke("snapshot", [])) as DeskSnapshot;
      const link = cardSessionLink(snapshot.gateways, card);
      if (link === null || !isSafeExternalUrl(link)) return false;
      window.open(link, "_blank", "noopener,noreferrer");
      return true;
    },
    async openNeed(need) {
      // As main does: the link from the entry the host's core holds, never one the page makes.
      const snapshot = (await transport.invoke("snapshot", [])) as DeskSnapshot;
      const link = needPageLink(snapshot.gateways, need);
      if (link === null || !isSafeExternalUrl(link)) return false;
      window.open(link, "_blank", "noopener,noreferrer");
      return true;
    },
    async openPage(page: Page, card) {
      // A page of the other origin is answered with a redirect there (Settings has its own origin).
      const hash = card ? `#card=${encodeURIComponent(JSON.stringify(card))}` : "";
      loc.assign(`.${pagePath(page)}${hash}`);
    },
  });
}

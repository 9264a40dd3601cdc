// "Copy diagnostics" on the Settings page: the app copies the text itself where it can
// (Electron: the pages have no clipboard permission); in a browser the page copies the text
// the verb returned. Either way the person is told what happened.
import type { DeskApi } from "../../common/contract.ts";

export type ClipboardLike = { writeText(text: string): Promise<void> };

/** Copies the diagnostics; returns the line to show the person. */
export async function copyDiagnostics(api: Pick<DeskApi, "copyDiagnostics">, clipboard: ClipboardLike | undefined): Promise<string> {
  try {
    const { text, copied } = await api.copyDiagnostics();
    if (!copied) {
      if (!clipboard) return "Couldn't copy diagnostics: this browser gives the page no clipboard.";
      await clipboard.writeText(text);
    }
    return "Diagnostics copied. Secrets are left out; paste them into your bug report.";
  } catch (err) {
    return `Couldn't copy diagnostics: ${err instanceof Error ? err.message : String(err)}`;
  }
}

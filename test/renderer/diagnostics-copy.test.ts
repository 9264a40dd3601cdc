// The Settings page's "Copy diagnostics": who copies (the app, or the page in a browser) and what the person is told.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyDiagnostics } from "../../renderer/lib/diagnostics-copy.ts";
import type { DiagnosticsCopy } from "../../common/contract.ts";

const api = (reply: DiagnosticsCopy | Error) => ({
  copyDiagnostics: async (): Promise<DiagnosticsCopy> => {
    if (reply instanceof Error) throw reply;
    return reply;
  },
});

function recordingClipboard() {
  const written: string[] = [];
  return { written, clipboard: { writeText: async (t: string) => void written.push(t) } };
}

describe("copyDiagnostics (page side)", () => {
  test("the app copied: the page does not copy again", async () => {
    const { written, clipboard } = recordingClipboard();
    assert.match(await copyDiagnostics(api({ text: "diag", copied: true }), clipboard), /^Diagnostics copied\./);
    assert.deepEqual(written, []);
  });

  test("the host could not: the page copies the returned text", async () => {
    const { written, clipboard } = recordingClipboard();
    assert.match(await copyDiagnostics(api({ text: "diag text", copied: false }), clipboard), /^Diagnostics copied\./);
    assert.deepEqual(written, ["diag text"]);
  });

  test("no clipboard, a refused verb or a refused clipboard: said plainly", async () => {
    assert.match(await copyDiagnostics(api({ text: "x", copied: false }), undefined), /^Couldn't copy diagnostics: .*no clipboard/);
    assert.equal(await copyDiagnostics(api(new Error("Refused: nope.")), undefined), "Couldn't copy diagnostics: Refused: nope.");
    const denied = { writeText: async () => Promise.reject(new Error("Document is not focused.")) };
    assert.equal(await copyDiagnostics(api({ text: "x", copied: false }), denied), "Couldn't copy diagnostics: Document is not focused.");
  });
});

// The pure rules of the tidied activity strip (main/core/activity/strip-lines.ts): which tool's
// calls are left out, and how same lines in a row fold into one with a count.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ActivityLine } from "../../common/model.ts";
import { foldRepeats, leftOffStrip } from "../../main/core/activity/strip-lines.ts";

const line = (label: string, at: number, extra: Partial<ActivityLine> = {}): ActivityLine => ({
  glyph: "shell",
  label,
  tool: "exec",
  at,
  status: "done",
  ...extra,
});

describe("strip lines", () => {
  test("only the progress-card tool is left out", () => {
    assert.equal(leftOffStrip("progress_card"), true);
    for (const tool of ["exec", "read", "write", "update_plan", "progress", "card", "Progress_card"])
      assert.equal(leftOffStrip(tool), false);
  });

  test("same tool and label in a row fold into the newest line with a count", () => {
    const folded = foldRepeats([
      line("Shell · npm test", 1, { status: "failed" }),
      line("Shell · npm test", 2),
      line("Shell · npm test", 3, { status: "running" }),
    ]);
    assert.deepEqual(folded, [line("Shell · npm test", 3, { status: "running", count: 3 })]);
  });

  test("a different line in between starts a new fold; the same label from another tool is another line", () => {
    const folded = foldRepeats([
      line("Shell · ls", 1),
      line("Shell · ls", 2),
      line("Read · a.md", 3, { glyph: "read", tool: "read" }),
      line("Shell · ls", 4),
      line("Shell · ls", 5, { tool: "bash" }),
    ]);
    assert.deepEqual(
      folded.map((l) => [l.label, l.tool, l.at, l.count ?? 1]),
      [
        ["Shell · ls", "exec", 2, 2],
        ["Read · a.md", "read", 3, 1],
        ["Shell · ls", "exec", 4, 1],
        ["Shell · ls", "bash", 5, 1],
      ],
    );
  });

  test("a line that already stands for several adds its count; a count of one is not written", () => {
    const folded = foldRepeats([line("Shell · make", 1, { count: 5 }), line("Shell · make", 2), line("Read · b.md", 3, { count: 1 })]);
    assert.deepEqual(folded, [line("Shell · make", 2, { count: 6 }), line("Read · b.md", 3)]);
    assert.equal("count" in folded[1]!, false);
    assert.equal(foldRepeats([line("Shell · make", 1, { count: 2 }), line("Shell · make", 2, { count: 3 })])[0]?.count, 5);
  });

  test("the input is not changed", () => {
    const input = [line("Shell · make", 1), line("Shell · make", 2)];
    const copy = structuredClone(input);
    foldRepeats(input);
    assert.deepEqual(input, copy);
  });
});

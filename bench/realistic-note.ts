// A realistic progress note of 1–2 KB for the page benchmarks: what a working agent writes on its card
// (a heading line, a short status, a list of findings with inline code and links, a small table, a code
// block). Deterministic per index, so every side of a benchmark draws the same notes, and each note
// differs from the next, so no cache hides the rendering work.
const AREAS = ["parser", "scheduler", "billing export", "auth tokens", "search index", "image resize", "mail queue", "reports"];
const TOOLS = ["pytest", "cargo test", "npm test", "go test ./...", "mvn verify", "rspec"];
const HOSTS = ["github.com", "docs.example.com", "ci.example.org", "tracker.example.net"];

/** The note for card `i`: between 1,000 and 2,000 bytes of Markdown. */
export function realisticNote(i: number): string {
  const area = AREAS[i % AREAS.length]!;
  const tool = TOOLS[i % TOOLS.length]!;
  const host = HOSTS[i % HOSTS.length]!;
  const failing = (i * 7) % 5;
  const rows = 2 + (i % 3);
  const lines = [
    `**${area}: step ${1 + (i % 4)} of 4.** Working through the ${area} changes for card ${i}; ${failing} check${failing === 1 ? "" : "s"} still failing.`,
    "",
    "Found so far:",
    `- \`${area.replace(/ /g, "_")}.${i % 2 ? "ts" : "py"}\` keeps a stale cache after a reload (see [issue ${1000 + i}](https://${host}/issues/${1000 + i}))`,
    `- the retry path swallows the *second* error; fixed in \`retry_${i % 9}()\``,
    `- ${tool} passes locally, fails on the runner with a timeout after ${30 + (i % 50)} s`,
    i % 2
      ? `- ~~flaky fixture~~ turned out to be a real race, now covered`
      : `- docs need the new flag, drafted in [the guide](https://${host}/guide#flags)`,
    "",
    "| Check | Before | After |",
    "|---|---:|---:|",
    ...Array.from(
      { length: rows },
      (_, r) => `| ${["unit", "integration", "lint", "e2e"][r]} | ${40 + ((i + r) % 60)} ms | ${20 + ((i * 3 + r) % 40)} ms |`,
    ),
    "",
    "```",
    `$ ${tool} -k ${area.replace(/ /g, "_")}`,
    `${12 + (i % 30)} passed, ${failing} failed in ${(1 + (i % 9) / 10).toFixed(1)} s`,
    "```",
    "",
    "Order of work:",
    "",
    ...Array.from(
      { length: 3 + (i % 4) },
      (_, k) =>
        `${k + 1}. ${["reproduce the failure with a fixed seed", "bisect the last twenty commits on the branch", "read the runner's logs around the timeout", "add a regression test next to the fixture", "ask for a review once everything is green", "update the changelog and the migration notes"][k]}`,
    ),
    "",
    `> The owners asked for the ${area} change to stay behind a flag until the next release; keeping it off by default.`,
    "",
    ...Array.from(
      { length: 1 + (i % 5) },
      (_, k) =>
        `Run ${k + 1}: ${tool} took ${(2 + ((i + k) % 7) / 3).toFixed(1)} s with ${k % 2 ? "a cold cache" : "the cache warm"}; the ${area} step was ${k ? "slower" : "faster"} than the last build.`,
    ),
    "",
    `Next: rerun with logging on, then write the summary. ${i % 3 === 0 ? "Blocked on a review from the owners of this module; pinged them in the thread." : "No blockers."}`,
  ];
  return lines.join("\n");
}

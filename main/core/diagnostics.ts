// "Copy diagnostics" (Settings): what a bug report needs, as plain text — versions, each
// Gateway's connection state, how credentials are kept, and the last log lines. The log
// lines are already redacted; everything else passes through the same redaction.
import type { Logger } from "./logger.ts";
import type { DeskSnapshot } from "../../common/model.ts";
import type { UpdateView } from "../../common/updates.ts";

export type DiagnosticsInput = {
  appVersion: string;
  /** Runtime versions (node, electron, chrome…) as process.versions gives them. */
  versions: Readonly<Record<string, string | undefined>>;
  platform: string;
  snapshot: DeskSnapshot;
  /** U8: the app's own updates. */
  updates?: UpdateView;
  logger: Pick<Logger, "recent" | "redact">;
  now?: () => number;
};

const RUNTIMES = ["electron", "chrome", "node", "v8"] as const;

export function diagnosticsText(input: DiagnosticsInput): string {
  const lines: string[] = [];
  lines.push(`Progress Desk ${input.appVersion} on ${input.platform}`);
  lines.push(`Generated ${new Date((input.now ?? Date.now)()).toISOString()}`);
  const runtimes = RUNTIMES.filter((k) => input.versions[k]).map((k) => `${k} ${input.versions[k]}`);
  if (runtimes.length > 0) lines.push(runtimes.join(", "));
  lines.push(`Credentials: ${input.snapshot.credentials ?? "unknown"}`);
  if (input.updates) lines.push(...updateLines(input.updates));
  lines.push("", "Gateways:");
  if (input.snapshot.gateways.length === 0) lines.push("  (none)");
  for (const g of input.snapshot.gateways) {
    const c = g.connection;
    const detail = "attempt" in c ? ` (attempt ${c.attempt})` : c.state === "connected" ? ` (server ${c.serverVersion ?? "unknown"})` : "";
    lines.push(`  ${g.id} "${g.label}" ${g.url}: ${c.state}${detail} — ${c.advice}`);
    lines.push(`    ${g.cards.filter((e) => e.card).length} cards, ${g.sessions.length} sessions`);
  }
  const recent = input.logger.recent();
  lines.push("", `Last ${recent.length} log lines:`, ...recent);
  return input.logger.redact(lines.join("\n")) + "\n";
}

/** U8: the update channel, whether updates are automatic, the state and the last quiet error. */
function updateLines(u: UpdateView): string[] {
  const detail =
    u.state === "disabled" || u.state === "error"
      ? ` — ${u.reason}`
      : u.state === "downloading"
        ? ` ${u.version} (${u.percent}%)`
        : u.state === "available" || u.state === "ready"
          ? ` ${u.version}`
          : "";
  const lines = [`Updates: ${u.channel} channel, ${u.automatic ? "automatic" : "manual"}, ${u.state}${detail}`];
  if (u.quietError) lines.push(`  last automatic check failed: ${u.quietError}`);
  return lines;
}

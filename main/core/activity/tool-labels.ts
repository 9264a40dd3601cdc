// How a tool call reads on an activity line: its glyph and verb (`Read`, `Shell`, `Web search`),
// whether its detail is a command (hidden under the `status` command-text setting), and the
// leading word the Gateway's summary starts with that the label drops (`from`, `to`, `for`).
import type { ActivityGlyph } from "../../../common/model.ts";

export type ToolKind = { glyph: ActivityGlyph; verb: string; command?: boolean; lead?: RegExp; noDetail?: boolean };

const SHELL: ToolKind = { glyph: "shell", verb: "Shell", command: true };
const TOOLS: Record<string, ToolKind> = {
  read: { glyph: "read", verb: "Read", lead: /^from\s+/i },
  write: { glyph: "write", verb: "Write", lead: /^to\s+/i },
  file_write: { glyph: "write", verb: "Write", lead: /^to\s+/i },
  edit: { glyph: "edit", verb: "Edit", lead: /^in\s+/i },
  apply_patch: { glyph: "edit", verb: "Patch", lead: /^(in|to)\s+/i },
  exec: SHELL,
  bash: SHELL,
  shell: SHELL,
  process: SHELL,
  ls: { glyph: "list", verb: "List" },
  dir_list: { glyph: "list", verb: "List" },
  web_search: { glyph: "search", verb: "Web search", lead: /^for\s+/i },
  memory_search: { glyph: "search", verb: "Memory search", lead: /^for\s+/i },
  sessions_search: { glyph: "search", verb: "Session search", lead: /^for\s+/i },
  tool_search: { glyph: "search", verb: "Tool search", lead: /^for\s+/i },
  web_fetch: { glyph: "web", verb: "Fetch", lead: /^from\s+/i },
  file_fetch: { glyph: "web", verb: "Fetch", lead: /^from\s+/i },
  dir_fetch: { glyph: "web", verb: "Fetch", lead: /^from\s+/i },
  browser: { glyph: "web", verb: "Browser" },
  progress_card: { glyph: "card", verb: "Progress card", noDetail: true },
  update_plan: { glyph: "plan", verb: "Plan" },
  create_goal: { glyph: "plan", verb: "Goal" },
  update_goal: { glyph: "plan", verb: "Goal" },
  get_goal: { glyph: "plan", verb: "Goal" },
  sessions_spawn: { glyph: "agent", verb: "Sub-agent" },
  subagents: { glyph: "agent", verb: "Sub-agents" },
  message: { glyph: "message", verb: "Message" },
  sessions_send: { glyph: "message", verb: "Message" },
};

export function kindOf(tool: string): ToolKind {
  return TOOLS[tool] ?? { glyph: "tool", verb: humanize(tool) };
}

/** `memory_get` → `Memory get`. */
function humanize(name: string): string {
  const words = name.replace(/[_\-.]+/g, " ").trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : "Tool";
}

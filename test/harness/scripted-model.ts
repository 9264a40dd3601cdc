// A scripted OpenAI-compatible fake model for real Gateway agent turns (the rules are in this file).
//
// A test puts `SCRIPT:<json array>` on one line of its chat message. Step N (the number of assistant
// messages after that user message) answers with element N: `{tool, args, delayMs?}` → a tool call,
// `{text, delayMs?}` → final text; past the end → "done". A user message without SCRIPT (the refresh
// prompt, a steer) gets one progress_card write advancing the session's last card, then
// "Status updated" — or, when it interrupted a still-running script, the script carries on.
import { writeFileSync, mkdirSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export type ScriptStep = { tool: string; args?: unknown; delayMs?: number } | { text: string; delayMs?: number };
export type PlanStep = { step: string; status: "pending" | "in_progress" | "completed" };
export type ModelReply = { toolCall?: { id: string; name: string; arguments: string }; text?: string; delayMs: number };
export type RecordedRequest = {
  seq: number;
  receivedAt: number;
  method: string;
  path: string;
  kind: "agent" | "utility" | "other";
  body: any;
  /** What the fake answered (agent/utility calls). */
  reply?: ModelReply;
};
export type ScriptedModel = {
  port: number;
  baseUrl: string;
  requests(): RecordedRequest[];
  stop(): Promise<void>;
};

const INTERNAL_CONTEXT = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";
// The Gateway rewrites tool-call ids in the history ("call_7" comes back as "call7"): keep the marker alphanumeric.
const REFRESH_CALL = "callrefresh";
const isRefreshCall = (c: any) => /refresh/i.test(String(c?.id ?? ""));

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("\n");
  return "";
}

function parseScript(text: string): ScriptStep[] | null {
  for (const line of text.split("\n")) {
    const at = line.indexOf("SCRIPT:");
    if (at < 0) continue;
    try {
      const parsed: unknown = JSON.parse(line.slice(at + "SCRIPT:".length).trim());
      if (Array.isArray(parsed)) return parsed as ScriptStep[];
    } catch {
      // Not a script line; keep looking.
    }
  }
  return null;
}

/** Marks the in_progress step completed and starts the next pending one. */
function advance(card: { plan?: PlanStep[] } | undefined): { plan: PlanStep[]; markdown: string } {
  const plan: PlanStep[] = card?.plan?.length ? card.plan.map((s) => ({ ...s })) : [{ step: "Check status", status: "in_progress" }];
  if (card?.plan?.length) {
    const current = plan.findIndex((s) => s.status === "in_progress");
    if (current >= 0) plan[current]!.status = "completed";
    const next = plan.findIndex((s, i) => i > current && s.status === "pending");
    if (next >= 0) plan[next]!.status = "in_progress";
  }
  const done = plan.filter((s) => s.status === "completed").length;
  return { plan, markdown: `Status updated: ${done}/${plan.length} complete` };
}

/** The last progress_card arguments (direct or via tool_call) in the conversation history. */
function lastCardIn(messages: any[]): { plan?: PlanStep[] } | undefined {
  for (const m of messages.toReversed()) {
    for (const c of (m?.role === "assistant" && Array.isArray(m.tool_calls) ? m.tool_calls : []).toReversed()) {
      try {
        const args = JSON.parse(c?.function?.arguments ?? "null");
        if (c.function.name === "progress_card") return args;
        if (c.function.name === "tool_call" && args?.id === "progress_card") return args.args;
      } catch {
        // Unparseable arguments: not a card.
      }
    }
  }
  return undefined;
}

export async function startScriptedModel(opts: { port?: number; logDir?: string } = {}): Promise<ScriptedModel> {
  const recorded: RecordedRequest[] = [];
  const lastCards = new Map<string, { plan?: PlanStep[] }>(); // session key → last progress_card args sent
  let seq = 0;
  if (opts.logDir) mkdirSync(opts.logDir, { recursive: true });

  function agentReply(body: any, n: number): ModelReply {
    const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
    const offered = new Set<string>((body.tools ?? []).map((t: any) => t?.function?.name).filter(Boolean));
    const isReal = (m: any) => m?.role === "user" && !textOf(m.content).includes(INTERNAL_CONTEXT);
    const userAt = messages.findLastIndex(isReal);
    const userText = userAt >= 0 ? textOf(messages[userAt].content) : "";
    // The refresh prompt carries no Runtime: line, so take the latest user message that has one.
    const session =
      messages
        .filter((m) => m?.role === "user")
        .map((m) => /Runtime:.*?\bsession=([^\s|]+)/.exec(textOf(m.content))?.[1])
        .findLast(Boolean) ?? "unknown";
    const assistantsAfter = (from: number, skipRefresh: boolean) =>
      messages.slice(from + 1).filter((m) => {
        if (m?.role !== "assistant") return false;
        return !(skipRefresh && m.tool_calls?.some(isRefreshCall));
      });
    const tool = (name: string, args: unknown, delayMs: number, refresh = false): ModelReply => {
      if (name === "progress_card") lastCards.set(session, args as { plan?: PlanStep[] });
      const wrapped = !offered.has(name) && offered.has("tool_call");
      return {
        delayMs,
        toolCall: {
          id: `${refresh ? REFRESH_CALL : "call_"}${n}`,
          name: wrapped ? "tool_call" : name,
          arguments: JSON.stringify(wrapped ? { id: name, args } : (args ?? {})),
        },
      };
    };
    const scripted = (script: ScriptStep[], step: number): ModelReply => {
      const item = script[step];
      if (!item) return { text: "done", delayMs: 0 };
      if ("tool" in item) return tool(item.tool, item.args, item.delayMs ?? 0);
      return { text: String(item.text), delayMs: item.delayMs ?? 0 };
    };

    if (userText.includes("Skill review.")) return { text: "NO_REPLY", delayMs: 0 };
    const script = parseScript(userText);
    if (script) return scripted(script, assistantsAfter(userAt, true).length);

    // No SCRIPT: refresh prompt or steer. Step 0 writes the advanced card.
    const after = assistantsAfter(userAt, false);
    if (after.length === 0) return tool("progress_card", advance(lastCards.get(session) ?? lastCardIn(messages)), 0, true);
    // Did this message interrupt a scripted run (no final text between that script and here)? Carry on.
    const scriptAt = messages.slice(0, userAt).findLastIndex((m) => isReal(m) && parseScript(textOf(m.content)));
    if (scriptAt >= 0) {
      const between = messages.slice(scriptAt + 1, userAt).filter((m) => m?.role === "assistant");
      if (between.length > 0 && between.every((m) => m.tool_calls?.length)) {
        const steps = assistantsAfter(scriptAt, true).length;
        return scripted(parseScript(textOf(messages[scriptAt].content))!, steps);
      }
    }
    return { text: "Status updated", delayMs: 0 };
  }

  function send(res: http.ServerResponse, body: any, reply: ModelReply, n: number): void {
    const base = { id: `chatcmpl-${n}`, created: Math.floor(Date.now() / 1000), model: String(body.model ?? "scripted-1") };
    const finish = reply.toolCall ? "tool_calls" : "stop";
    const toolCalls = reply.toolCall && [
      { index: 0, id: reply.toolCall.id, type: "function", function: { name: reply.toolCall.name, arguments: reply.toolCall.arguments } },
    ];
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    if (!body.stream) {
      const message = toolCalls
        ? { role: "assistant", content: null, tool_calls: toolCalls.map(({ index: _index, ...call }) => call) }
        : { role: "assistant", content: reply.text };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish }], usage }));
      return;
    }
    const chunk = (choices: unknown[], extra: object = {}) =>
      `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices, ...extra })}\n\n`;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.write(chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]));
    res.write(chunk([{ index: 0, delta: toolCalls ? { tool_calls: toolCalls } : { content: reply.text }, finish_reason: null }]));
    res.write(chunk([{ index: 0, delta: {}, finish_reason: finish }]));
    res.write(chunk([], { usage }));
    res.end("data: [DONE]\n\n");
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    let body: any;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : null;
    } catch {
      body = Buffer.concat(chunks).toString("utf8");
    }
    const n = ++seq;
    const isChat = req.method === "POST" && url.pathname.endsWith("/chat/completions");
    const isUtility = isChat && !(Array.isArray(body?.tools) && body.tools.length > 0);
    const entry: RecordedRequest = {
      seq: n,
      receivedAt: Date.now(),
      method: req.method ?? "",
      path: url.pathname,
      kind: isChat ? (isUtility ? "utility" : "agent") : "other",
      body,
    };
    recorded.push(entry);
    if (isChat) entry.reply = isUtility ? { text: "Scripted session", delayMs: 0 } : agentReply(body ?? {}, n);
    if (opts.logDir) {
      const file = path.join(opts.logDir, `${String(n).padStart(4, "0")}-${entry.kind}.json`);
      writeFileSync(file, JSON.stringify(entry, null, 2));
    }

    if (req.method === "GET" && url.pathname.endsWith("/models")) {
      const data = ["scripted-1", "scripted-utility"].map((id) => ({ id, object: "model", created: 0, owned_by: "fake" }));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data }));
      return;
    }
    if (!isChat || !entry.reply) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${url.pathname}` } }));
      return;
    }
    if (entry.reply.delayMs > 0) await sleep(entry.reply.delayMs);
    if (res.destroyed || res.writableEnded) return; // The Gateway gave up on this call.
    send(res, body ?? {}, entry.reply, n);
  }

  const server = http.createServer((req, res) => {
    req.on("error", () => {});
    res.on("error", () => {});
    handle(req, res).catch((error: unknown) => {
      if (res.destroyed) return;
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  server.on("clientError", (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests: () => recorded.slice(),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

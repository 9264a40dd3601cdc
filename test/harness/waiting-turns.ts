// Agent turns that wait on the person, driven by the scripted model (the SCRIPT in the message): an
// `exec` call the Gateway holds for approval, an `ask_user` question; then the run's end and what
// the model was told in its next call.
import assert from "node:assert/strict";
import { p, type BareClient } from "./bare-client.ts";
import type { ScriptedModel } from "./scripted-model.ts";

const newRunId = (prefix: string) => `${prefix}-${Math.random().toString(16).slice(2)}`;

/** A turn in a new session whose one tool call, `exec` of `command`, waits for approval; then it says `finalText`. */
export async function startExecTurn(user: BareClient, command: string, finalText: string): Promise<{ key: string; runId: string }> {
  const key = await user.createSession();
  const runId = newRunId("run");
  await user.request("chat.send", {
    sessionKey: key,
    idempotencyKey: runId,
    message: `Run it.\nSCRIPT:${JSON.stringify([{ tool: "exec", args: { command } }, { text: finalText }])}`,
  });
  return { key, runId };
}

/**
 * A main-session turn whose one tool call asks the person a question (ask_user's own argument
 * shape: `id`, not `questionId`; 2–4 options), then it says `finalText`. Resolves with its run id.
 */
export async function startQuestionTurn(user: BareClient, finalText: string, runId = newRunId("run-q")): Promise<string> {
  const ask = {
    questions: [
      { id: "colour", header: "Pick", question: "Which colour?", options: [{ label: "Red" }, { label: "Blue", description: "calm" }] },
    ],
  };
  await user.request("chat.send", {
    sessionKey: "agent:main:main",
    idempotencyKey: runId,
    message: `Ask me.\nSCRIPT:${JSON.stringify([{ tool: "ask_user", args: ask }, { text: finalText }])}`,
  });
  return runId;
}

/** The run's lifecycle end (or error) event. */
export const runEnded = (user: BareClient, runId: string) =>
  user.waitForEvent(
    (e) => e.event === "agent" && p(e).runId === runId && p(e).stream === "lifecycle" && ["end", "error"].includes(p(e).data?.phase),
    90_000,
  );

/** The tool result (exec's, ask_user's) the model was given in the call it answered with `finalText`. */
export function toolResultBefore(model: ScriptedModel, finalText: string): string {
  const call = model.requests().find((r) => r.kind === "agent" && r.reply?.text === finalText);
  assert.ok(call, `the model was never asked for "${finalText}"`);
  const messages: any[] = call.body.messages;
  const result = messages.findLast((m) => m?.role === "tool");
  assert.ok(result, "no tool result in that call");
  return typeof result.content === "string" ? result.content : JSON.stringify(result.content);
}

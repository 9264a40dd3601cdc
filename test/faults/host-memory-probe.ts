// Test-only, never part of the CLI: the memory tests start the host child with
// `node --expose-gc --import <this file>` and an IPC channel of their own. Asked over that
// channel, it reports the host's process.memoryUsage(), after a full collection if asked, so a
// test can tell memory still referenced (a leak) from pages the heap or malloc keep for reuse.
import type { MemoryProbeAsk, MemoryProbeReply } from "./host-process.ts";

process.on("message", (m: MemoryProbeAsk) => {
  if (typeof m !== "object" || m === null || m.probe !== "memory") return;
  // Twice: the first collection runs finalizers that free external memory (Buffers' backing
  // stores); the second collects what those finalizers let go.
  if (m.gc) for (let i = 0; i < 2; i += 1) globalThis.gc!();
  const reply: MemoryProbeReply = { probe: "memory", id: m.id, usage: process.memoryUsage() };
  process.send!(reply);
});
// The channel must not keep the host running after SIGTERM.
process.channel?.unref();

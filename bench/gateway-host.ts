// Hosts the benchmark's Gateway in its own small process. The test harness keeps the
// Gateway's last 20,000 log lines in memory in whichever process starts it (useful for
// tests, several MB under a burst), so starting it here keeps that out of the desk's RSS,
// heap and event loop. Talks to bench/run.ts over IPC:
//   child → {type:"ready", url, port, token, pid} | {type:"error", message}
//   parent → {type:"dispose"}   (a lost parent counts as one)
import { startGateway, type TestGateway } from "../test/harness/gateway.ts";

export type GatewayReady = { type: "ready"; url: string; port: number; token: string; pid: number };

let gw: TestGateway | null = null;
let closing = false;

async function shutdown(code: number): Promise<void> {
  if (closing) return;
  closing = true;
  try {
    await gw?.dispose();
  } finally {
    process.exit(code);
  }
}

process.on("message", (m: { type?: string }) => {
  if (m?.type === "dispose") void shutdown(0);
});
process.on("disconnect", () => void shutdown(0));

try {
  gw = await startGateway();
  if (closing) await gw.dispose();
  else process.send?.({ type: "ready", url: gw.url, port: gw.port, token: gw.token, pid: gw.pid } satisfies GatewayReady);
} catch (err) {
  process.send?.({ type: "error", message: err instanceof Error ? err.message : String(err) });
  await shutdown(1);
}

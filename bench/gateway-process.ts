// The harness's real Gateway in a process of its own (bench/gateway-host.ts says why), for
// every benchmark.
import { spawn } from "node:child_process";
import path from "node:path";
import type { GatewayReady } from "./gateway-host.ts";

export function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing within ${timeoutMs} ms`)), timeoutMs);
    }),
  ]);
}

export type HostedGateway = { url: string; port: number; token: string; pid: number; dispose(): Promise<void> };

/** The harness's real Gateway, started from bench/gateway-host.ts (see there for why). */
export async function startHostedGateway(): Promise<HostedGateway> {
  const host = spawn(process.execPath, [path.join(import.meta.dirname, "gateway-host.ts")], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, PD_BENCH_REEXEC: "1" },
  });
  const exited = new Promise<void>((resolve) => host.once("exit", () => resolve()));
  const ready = await withTimeout(
    new Promise<GatewayReady>((resolve, reject) => {
      host.on("message", (m: GatewayReady | { type: "error"; message: string }) =>
        m.type === "ready" ? resolve(m) : reject(new Error(`Gateway did not start: ${m.message}`)),
      );
      void exited.then(() => reject(new Error("the Gateway host exited before the Gateway was ready")));
    }),
    90_000,
    "Gateway start",
  ).catch(async (err: unknown) => {
    host.kill("SIGTERM");
    await exited;
    throw err;
  });
  return {
    url: ready.url,
    port: ready.port,
    token: ready.token,
    pid: ready.pid,
    async dispose() {
      if (host.exitCode !== null || host.signalCode !== null) return;
      host.send({ type: "dispose" });
      // The host's own exit hooks kill the Gateway's process group if it is told to stop by signal.
      await withTimeout(exited, 20_000, "Gateway dispose").catch(async () => {
        host.kill("SIGTERM");
        await exited;
      });
    },
  };
}

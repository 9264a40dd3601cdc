// Starts a real, isolated OpenClaw Gateway for tests (docs/gateway.md §8; the model is test/harness/scripted-model.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ensureOpenclaw } from "./install-openclaw.ts";
import type { ScriptedModel } from "./scripted-model.ts";

export type TestGateway = {
  url: string;
  port: number;
  token: string;
  stateDir: string;
  /** The Gateway's detailed log file (inside the state dir). */
  logFile: string;
  /** The current Gateway process (changes on restart). */
  readonly pid: number;
  logs(): string;
  stop(signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
  restart(): Promise<void>;
  dispose(): Promise<void>;
};

// A ceiling, not a wait: generous, because a loaded CI machine can take minutes to start one.
const READY_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 10_000;
const MAX_LOG_LINES = 20_000;
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

// Process groups still alive; killed if this process exits or is signalled without disposing.
const liveGroups = new Set<number>();
const liveStateDirs = new Set<string>();
let exitHooksInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the whole group is gone already.
  }
}

/** All descendants of `root` (Linux /proc; elsewhere none). Some Gateway helpers start their own process group. */
function descendantsOf(root: number): number[] {
  if (process.platform !== "linux") return [];
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // The process ended while we looked.
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function killTree(pid: number, signal: NodeJS.Signals): number[] {
  const descendants = descendantsOf(pid);
  killGroup(pid, signal);
  for (const d of descendants) {
    try {
      process.kill(d, signal);
    } catch {
      // Already gone.
    }
  }
  return descendants;
}

function killAllNow(): void {
  for (const pid of liveGroups) killTree(pid, "SIGKILL");
  liveGroups.clear();
  for (const dir of liveStateDirs) rmSync(dir, { recursive: true, force: true });
  liveStateDirs.clear();
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on("exit", killAllNow);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = () => {
      killAllNow();
      // Restore the default action if nobody else handles this signal.
      process.removeListener(signal, onSignal);
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

async function waitPortFree(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await portIsFree(port))) {
    if (Date.now() > deadline) throw new Error(`port ${port} is still in use`);
    await sleep(100);
  }
}

function modelConfig(model: ScriptedModel, token: string, logFile: string, tools: Record<string, unknown>): object {
  const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const entry = (id: string, name: string, maxTokens: number) => ({
    id,
    name,
    reasoning: false,
    input: ["text"],
    cost,
    contextWindow: 128000,
    maxTokens,
  });
  return {
    gateway: { mode: "local", auth: { mode: "token", token } },
    logging: { file: logFile },
    models: {
      mode: "merge",
      providers: {
        fake: {
          baseUrl: model.baseUrl,
          apiKey: "fake-key",
          api: "openai-completions",
          agentRuntime: { id: "openclaw" },
          models: [entry("scripted-1", "Scripted 1", 4096), entry("scripted-utility", "Scripted utility", 1024)],
        },
      },
    },
    // No heartbeat: a scheduled main-session turn minutes into a suite would write cards of its own.
    agents: { defaults: { model: { primary: "fake/scripted-1" }, utilityModel: "fake/scripted-utility", heartbeat: { every: "0m" } } },
    tools: { toolSearch: false, ...tools },
    skills: { workshop: { autonomous: { mode: "off" } } },
  };
}

export async function startGateway(
  opts: {
    model?: ScriptedModel;
    port?: number;
    token?: string;
    env?: Record<string, string>;
    /** More `tools` config beside `toolSearch: false`, e.g. `{exec: {host: "gateway", mode: "ask"}}` for approvals. */
    tools?: Record<string, unknown>;
  } = {},
): Promise<TestGateway> {
  const { nodePath, openclawEntry } = await ensureOpenclaw();
  installExitHooks();
  const port = opts.port ?? (await freePort());
  const token = opts.token ?? randomBytes(32).toString("hex");
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "progress-desk-gw-"));
  liveStateDirs.add(stateDir);
  const home = path.join(stateDir, "home");
  mkdirSync(home, { recursive: true });
  const configPath = path.join(stateDir, "openclaw.json");
  const logFile = path.join(stateDir, "gateway.log");
  const config = opts.model
    ? modelConfig(opts.model, token, logFile, opts.tools ?? {})
    : { gateway: { mode: "local", auth: { mode: "token", token } }, logging: { file: logFile } };
  writeFileSync(configPath, JSON.stringify(config, null, 2) + "\n");

  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    // Nothing from a developer's own OpenClaw setup (gateway URL/token, profile, home) leaks in.
    if (value === undefined || key.startsWith("OPENCLAW_") || key === "NODE_TEST_CONTEXT") continue;
    env[key] = value;
  }
  Object.assign(env, {
    PATH: `${path.dirname(nodePath)}${path.delimiter}${process.env.PATH ?? ""}`,
    HOME: home,
    OPENCLAW_STATE_DIR: stateDir,
    OPENCLAW_CONFIG_PATH: configPath,
    OPENCLAW_DISABLE_BONJOUR: "1",
    OPENCLAW_SKIP_CHANNELS: "1",
    OPENCLAW_NO_RESPAWN: "1",
    OPENCLAW_EXEC_SHELL_SNAPSHOT: "0",
    ...opts.env,
  });
  const args = [
    openclawEntry,
    "gateway",
    "run",
    "--allow-unconfigured",
    "--bind",
    "loopback",
    "--port",
    String(port),
    "--auth",
    "token",
    "--token",
    token,
  ];

  const lines: string[] = [];
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let disposed = false;

  const addLines = (text: string) => {
    for (const line of text.split(/\r?\n/)) {
      if (line) lines.push(line.replace(ANSI, ""));
    }
    if (lines.length > MAX_LOG_LINES) lines.splice(0, lines.length - MAX_LOG_LINES);
  };

  async function launchOnce(): Promise<void> {
    const from = lines.length;
    const proc = spawn(nodePath, args, { cwd: stateDir, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    child = proc;
    const pid = proc.pid;
    if (pid === undefined) throw new Error("failed to spawn the Gateway");
    liveGroups.add(pid);
    let partial = { out: "", err: "" };
    const reader = (which: "out" | "err") => (data: Buffer) => {
      const text = partial[which] + data.toString("utf8");
      const cut = text.lastIndexOf("\n");
      partial[which] = text.slice(cut + 1);
      if (cut >= 0) addLines(text.slice(0, cut));
      onOutput();
    };
    proc.stdout!.on("data", reader("out"));
    proc.stderr!.on("data", reader("err"));
    exited = new Promise<void>((resolve) => {
      proc.once("exit", (code, signal) => {
        addLines(partial.out + "\n" + partial.err);
        partial = { out: "", err: "" };
        lines.push(`[harness] gateway pid ${pid} exited (${signal ?? `code ${code}`})`);
        // Sweep anything left in the group (the Gateway's own helpers).
        killGroup(pid, "SIGKILL");
        liveGroups.delete(pid);
        if (child === proc) child = null;
        resolve();
      });
    });

    let onOutput = () => {};
    const ready = new Promise<void>((resolve, reject) => {
      const fail = (why: string) => reject(new Error(`Gateway ${why}; last log lines:\n${lines.slice(-40).join("\n")}`));
      const timer = setTimeout(() => fail(`not ready after ${READY_TIMEOUT_MS / 1000} s`), READY_TIMEOUT_MS);
      onOutput = () => {
        for (let i = from; i < lines.length; i++) {
          if (/\[gateway\] ready\b/.test(lines[i]!)) {
            clearTimeout(timer);
            onOutput = () => {};
            resolve();
            return;
          }
        }
      };
      void exited.then(() => {
        clearTimeout(timer);
        fail("exited before it was ready");
      });
    });
    try {
      await ready;
    } catch (error) {
      await stop("SIGKILL");
      throw error;
    }
  }

  async function launch(): Promise<void> {
    // After a SIGKILL the port can take a moment to be released; a bind race gets a few retries.
    for (let attempt = 1; ; attempt++) {
      await waitPortFree(port, 10_000);
      try {
        await launchOnce();
        return;
      } catch (error) {
        const inUse = /EADDRINUSE|address already in use|already (in use|listening)/i.test(String(error));
        if (!inUse || attempt >= 3) throw error;
        await sleep(500);
      }
    }
  }

  async function stop(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> {
    const proc = child;
    if (!proc || proc.pid === undefined) return exited;
    const pid = proc.pid;
    // SIGTERM goes to the group only (the Gateway shuts its helpers down itself); SIGKILL to the whole tree.
    const descendants = signal === "SIGKILL" ? killTree(pid, signal) : (killGroup(pid, signal), descendantsOf(pid));
    const timedOut = await Promise.race([exited.then(() => false), sleep(STOP_TIMEOUT_MS).then(() => true)]);
    if (timedOut) {
      lines.push(`[harness] gateway pid ${pid} ignored ${signal} for ${STOP_TIMEOUT_MS / 1000} s; SIGKILL`);
      descendants.push(...killTree(pid, "SIGKILL"));
      await exited;
    }
    // Nothing the Gateway started may outlive it.
    for (const d of descendants) {
      try {
        process.kill(d, "SIGKILL");
      } catch {
        // Exited with the Gateway, as it should.
      }
    }
  }

  try {
    await launch();
  } catch (error) {
    rmSync(stateDir, { recursive: true, force: true, maxRetries: 3 });
    liveStateDirs.delete(stateDir);
    throw error;
  }

  return {
    url: `ws://127.0.0.1:${port}`,
    port,
    token,
    stateDir,
    logFile,
    get pid() {
      return child?.pid ?? -1;
    },
    logs: () => lines.join("\n"),
    stop,
    async restart() {
      if (disposed) throw new Error("gateway disposed");
      await stop("SIGTERM");
      await launch();
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await stop("SIGTERM");
      rmSync(stateDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
      liveStateDirs.delete(stateDir);
    },
  };
}

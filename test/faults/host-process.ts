// The real `progress-desk host` (the built CLI from dist/) as a child process against a real
// Gateway, plus raw-socket tools for talking to it below the WebSocket library: handshakes,
// hand-made frames (any opcode, length, mask or payload) and the server's frames read back.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "../harness/until.ts";

const root = join(import.meta.dirname, "..", "..");
export const builtCli = join(root, "dist", "cli", "progress-desk.js");

export type HostProcess = {
  child: ChildProcess;
  pid: number;
  /** The first stdout line: the popover page's full URL. */
  url: string;
  port: number;
  secret: string;
  origin: string;
  settingsUrl: string;
  settingsPort: number;
  settingsSecret: string;
  settingsOrigin: string;
  stderr(): string;
  alive(): boolean;
  /** Resident memory of the host process in KiB (Linux /proc). */
  rssKiB(): number;
  /**
   * The host's process.memoryUsage(), after a full collection when `gc` is set. Only for a host
   * started with `{ memoryProbe: true }` (test flags on the child's node, not the CLI's).
   */
  memory(opts: { gc: boolean }): Promise<NodeJS.MemoryUsage>;
  stop(): Promise<void>;
};

/** What the test asks host-memory-probe.ts over the child's IPC channel, and its answer. */
export type MemoryProbeAsk = { probe: "memory"; id: number; gc: boolean };
export type MemoryProbeReply = { probe: "memory"; id: number; usage: NodeJS.MemoryUsage };

const memoryProbe = join(import.meta.dirname, "host-memory-probe.ts");

export type HostProcessOptions = {
  /** Run the child's node with --expose-gc and the test's memory probe preloaded, over an IPC channel. */
  memoryProbe?: boolean;
};

export async function startHostProcess(gw: { url: string; token: string }, opts: HostProcessOptions = {}): Promise<HostProcess> {
  if (!existsSync(builtCli)) throw new Error(`${builtCli} is missing: run \`npm run build\` first`);
  const home = mkdtempSync(join(tmpdir(), "pd-host-proc-"));
  const nodeFlags = opts.memoryProbe ? ["--expose-gc", "--import", memoryProbe] : [];
  const child = spawn(process.execPath, [...nodeFlags, builtCli, "host", "--port", "0", "--url", gw.url, "--token", gw.token], {
    env: { PATH: process.env.PATH, HOME: home, PROGRESS_DESK_HOME: home },
    stdio: opts.memoryProbe ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"],
  });
  let probeAsks = 0;
  const memory = (ask: { gc: boolean }): Promise<NodeJS.MemoryUsage> => {
    if (!opts.memoryProbe) return Promise.reject(new Error("the host was started without the memory probe"));
    const id = (probeAsks += 1);
    return new Promise((resolve, reject) => {
      const onReply = (m: MemoryProbeReply): void => {
        if (m?.probe !== "memory" || m.id !== id) return;
        child.off("message", onReply);
        child.off("exit", onExit);
        resolve(m.usage);
      };
      const onExit = (): void => {
        child.off("message", onReply);
        reject(new Error("the host exited before reporting its memory"));
      };
      child.on("message", onReply);
      child.once("exit", onExit);
      const message: MemoryProbeAsk = { probe: "memory", id, gc: ask.gc };
      child.send(message);
    });
  };
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (err += c));
  const exited = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const stop = async (): Promise<void> => {
    if (!exited()) {
      const gone = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await gone;
    }
    rmSync(home, { recursive: true, force: true });
  };
  try {
    const first = await until(
      "the host's first stdout line",
      () => {
        if (exited()) throw new Error(`the host exited: ${err}`);
        return out.includes("\n") ? out.split("\n")[0]! : null;
      },
      30_000,
    );
    const settingsUrl = await until("the Settings address on stderr", () => /^progress-desk: settings: (\S+)$/m.exec(err)?.[1], 10_000);
    const main = new URL(first);
    const settings = new URL(settingsUrl);
    return {
      child,
      pid: child.pid!,
      url: first,
      port: Number(main.port),
      secret: main.pathname.split("/")[1]!,
      origin: main.origin,
      settingsUrl,
      settingsPort: Number(settings.port),
      settingsSecret: settings.pathname.split("/")[1]!,
      settingsOrigin: settings.origin,
      stderr: () => err,
      alive: () => !exited(),
      rssKiB: () => Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? NaN),
      memory,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** A plain GET with an explicit Host header; the status and headers. */
export type HttpReply = { status: number; headers: Record<string, unknown> };

export function httpGet(port: number, path: string, headers: Record<string, string> = {}): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A WebSocket upgrade request as text (a fresh valid key unless one is given). */
export type UpgradeOptions = { origin?: string; host?: string; key?: string; version?: string; method?: string };

export function upgradeRequest(port: number, path: string, opts: UpgradeOptions = {}): string {
  const lines = [
    `${opts.method ?? "GET"} ${path} HTTP/1.1`,
    `Host: ${opts.host ?? `127.0.0.1:${port}`}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    `Sec-WebSocket-Key: ${opts.key ?? randomBytes(16).toString("base64")}`,
    `Sec-WebSocket-Version: ${opts.version ?? "13"}`,
  ];
  if (opts.origin !== undefined) lines.push(`Origin: ${opts.origin}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

export function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: "127.0.0.1", port });
    s.once("connect", () => {
      s.off("error", reject);
      resolve(s);
    });
    s.once("error", reject);
  });
}

/** A socket after a successful handshake (101), with whatever arrived after the reply headers. */
export async function rawBridge(port: number, path: string, origin: string): Promise<{ socket: net.Socket; frames: ServerFrames }> {
  const socket = await connect(port);
  socket.on("error", () => {});
  const frames = new ServerFrames(socket);
  socket.write(upgradeRequest(port, path, { origin }));
  const status = await until("the handshake reply", () => frames.handshakeStatus ?? (frames.closed ? -1 : null), 10_000);
  if (status !== 101) {
    socket.destroy();
    throw new Error(`handshake answered ${status}`);
  }
  return { socket, frames };
}

/** Reads the host's side of a socket: the HTTP reply line, then WebSocket frames (unmasked). */
export class ServerFrames {
  handshakeStatus: number | null = null;
  closed = false;
  /** Close code of the server's close frame, if one came. */
  closeCode: number | null = null;
  texts: string[] = [];
  private buf = Buffer.alloc(0);
  private inFrames = false;

  constructor(socket: net.Socket) {
    socket.on("data", (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.parse();
    });
    socket.on("close", () => (this.closed = true));
  }

  private parse(): void {
    if (!this.inFrames) {
      const end = this.buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      this.handshakeStatus = Number(/^HTTP\/1\.1 (\d{3})/.exec(this.buf.subarray(0, end).toString("latin1"))?.[1] ?? 0);
      this.buf = this.buf.subarray(end + 4);
      this.inFrames = true;
    }
    for (;;) {
      if (this.buf.length < 2) return;
      const opcode = this.buf[0]! & 0x0f;
      let len = this.buf[1]! & 0x7f;
      let at = 2;
      if (len === 126) {
        if (this.buf.length < 4) return;
        len = this.buf.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (this.buf.length < 10) return;
        len = Number(this.buf.readBigUInt64BE(2));
        at = 10;
      }
      if (this.buf.length < at + len) return;
      const payload = this.buf.subarray(at, at + len);
      if (opcode === 0x1) this.texts.push(payload.toString("utf8"));
      if (opcode === 0x8) this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      this.buf = this.buf.subarray(at + len);
    }
  }
}

export type FrameOptions = { fin?: boolean; rsv?: number; mask?: boolean; declaredLength?: number | bigint };

/** A client frame: masked unless told otherwise; the declared length may lie about the payload. */
export function frame(opcode: number, payload: Buffer, opts: FrameOptions = {}): Buffer {
  const fin = opts.fin ?? true;
  const mask = opts.mask ?? true;
  const declared = BigInt(opts.declaredLength ?? payload.length);
  const head: number[] = [(fin ? 0x80 : 0) | ((opts.rsv ?? 0) << 4) | (opcode & 0x0f)];
  let ext = Buffer.alloc(0);
  if (declared < 126n) head.push((mask ? 0x80 : 0) | Number(declared));
  else if (declared < 65536n) {
    head.push((mask ? 0x80 : 0) | 126);
    ext = Buffer.alloc(2);
    ext.writeUInt16BE(Number(declared));
  } else {
    head.push((mask ? 0x80 : 0) | 127);
    ext = Buffer.alloc(8);
    ext.writeBigUInt64BE(declared & 0xffffffffffffffffn);
  }
  if (!mask) return Buffer.concat([Buffer.from(head), ext, payload]);
  const key = randomBytes(4);
  const masked = Buffer.from(payload);
  for (let i = 0; i < masked.length; i += 1) masked[i]! ^= key[i % 4]!;
  return Buffer.concat([Buffer.from(head), ext, key, masked]);
}

export const textFrame = (text: string | Buffer, opts?: FrameOptions): Buffer =>
  frame(0x1, Buffer.isBuffer(text) ? text : Buffer.from(text), opts);

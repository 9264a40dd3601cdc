// `progress-desk watch` (T1): the core without Electron, in a terminal.
import { join } from "node:path";
import { historyPath, openHistoryFile } from "../core/card-history-file.ts";
import { ProgressDesk } from "../core/desk.ts";
import type { GatewayConfig } from "../core/desk-gateway.ts";
import { discoverGateway, discoveredGateway } from "../core/discovery.ts";
import type { ConnectionState, DeskChange } from "../../common/model.ts";
import { CredentialVault, dataHome, fileStorage } from "../core/vault.ts";
import { vaultNotice } from "./vault-notice.ts";
import { stderrLogger } from "./stderr-log.ts";
import { appVersion } from "../core/version.ts";
import { CLEAR_PROGRESS, progressSequence, terminalSupportsProgress } from "./osc-progress.ts";
import {
  activityLine,
  activitySignature,
  cardLine,
  cardSignature,
  connectionLine,
  focusedCard,
  jsonLine,
  needsJson,
  needsLine,
  plainCardLine,
  plainConnectionLine,
  plainNeedsLine,
  statusBlock,
} from "./watch-format.ts";
import { shortKeyTitle } from "../../common/sessions.ts";
import { needsRecordPath, openNeedsRecordFile } from "../core/needs-record-file.ts";
import { cardSlotKey, gatewaySessionKey } from "../../common/keys.ts";
import { lineWithoutControls } from "../../common/control-chars.ts";

export type WatchOptions = {
  json: boolean;
  url?: string;
  token?: string;
  password?: string;
  setupCode?: string;
  /** Y6: ask for the approvals and questions scopes and declare the approvals capability. */
  answerApprovals?: boolean;
  /** Debug lines on stderr. */
  verbose?: boolean;
};

export type WatchIO = {
  stdout: NodeJS.WriteStream | { write(s: string): boolean; isTTY?: boolean; columns?: number };
  stderr: { write(s: string): boolean };
  env: NodeJS.ProcessEnv;
  /** Resolves when the person asks to stop (Ctrl-C, SIGTERM). */
  stopSignal: Promise<void>;
};

/** Exit statuses scripts can branch on. */
export const EXIT = { ok: 0, usage: 2, auth_failed: 3, pairing_required: 4, update_required: 5 } as const;

const TERMINAL_STATES = new Set(["auth_failed", "pairing_required", "update_required"]);
const TTY_MIN_INTERVAL_MS = 100; // at most 10 redraws a second

export async function runWatch(opts: WatchOptions, io: WatchIO): Promise<number> {
  const logger = stderrLogger(io.stderr, opts.verbose ?? false);
  for (const secret of [opts.token, opts.password, opts.setupCode]) logger.protect(secret);
  const discovered = discoverGateway({
    env: io.env,
    explicit: {
      ...(opts.url ? { url: opts.url } : {}),
      ...(opts.token ? { token: opts.token } : {}),
      ...(opts.password ? { password: opts.password } : {}),
      ...(opts.setupCode ? { bootstrapToken: opts.setupCode } : {}),
    },
  });
  for (const note of discovered.notes) io.stderr.write(`progress-desk: ${note}\n`);
  for (const secret of [discovered.token, discovered.password, discovered.bootstrapToken]) logger.protect(secret);
  logger.debug("watch", { version: appVersion(), url: discovered.url, json: opts.json });
  const gateway: GatewayConfig = { ...discoveredGateway(discovered), ...(opts.answerApprovals ? { answerApprovals: true } : {}) };

  const credentialsFile = join(dataHome(io.env), "credentials.json");
  const vault = await CredentialVault.open(fileStorage(credentialsFile), logger);
  const notice = vaultNotice(vault, credentialsFile);
  if (notice) io.stderr.write(notice);
  // The app's card history continues here, read only: `watch` may run beside the app and must not overwrite its file.
  const history = openHistoryFile(historyPath(dataHome(io.env)), { write: false, warn: (m) => io.stderr.write(`progress-desk: ${m}\n`) });
  // The needs-you record likewise: read, never written, by `watch`.
  const needsRecord = openNeedsRecordFile(needsRecordPath(dataHome(io.env)), {
    write: false,
    warn: (m) => io.stderr.write(`progress-desk: ${m}\n`),
  });
  const desk = new ProgressDesk({ gateways: [gateway], vault, clientVersion: appVersion(), history, needsRecord, logger });
  const tty = !opts.json && Boolean(io.stdout.isTTY);
  const osc = tty && terminalSupportsProgress(io.env);
  const signatures = new Map<string, string>();
  const activitySignatures = new Map<string, string>();
  let exitCode: number = EXIT.ok;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));

  // ——— TTY: one block rewritten in place, throttled ———
  let drawnLines = 0;
  let lastDraw = 0;
  let drawTimer: ReturnType<typeof setTimeout> | null = null;
  let lastOsc = "";
  const draw = (): void => {
    drawTimer = null;
    lastDraw = Date.now();
    const width = Math.max(40, (io.stdout as { columns?: number }).columns ?? 100);
    const snapshot = desk.snapshot();
    const lines = statusBlock(snapshot, width - 1);
    let out = drawnLines > 0 ? `\x1b[${drawnLines}F` : "";
    out += lines.map((l) => `\x1b[2K${l}`).join("\n") + "\n\x1b[J";
    if (osc) {
      const seq = progressSequence(focusedCard(snapshot));
      if (seq !== lastOsc) out += seq;
      lastOsc = seq;
    }
    io.stdout.write(out);
    drawnLines = lines.length;
  };
  const scheduleDraw = (): void => {
    if (drawTimer) return;
    drawTimer = setTimeout(draw, Math.max(0, TTY_MIN_INTERVAL_MS - (Date.now() - lastDraw)));
  };

  const onConnection = (gatewayId: string, state: ConnectionState): void => {
    if (opts.json) io.stdout.write(jsonLine(connectionLine(gatewayId, state)));
    else if (!tty) io.stdout.write(plainConnectionLine(gatewayId, state) + "\n");
    if (TERMINAL_STATES.has(state.state)) {
      exitCode = EXIT[state.state as keyof typeof EXIT];
      // The advice quotes what the Gateway said (codes, a request id): stderr is a terminal too.
      io.stderr.write(`progress-desk: ${lineWithoutControls(state.advice)}\n`);
      finish();
    }
  };

  desk.subscribe((change: DeskChange) => {
    if (change.type === "connection") onConnection(change.gatewayId, change.connection);
    else if (change.type === "card") {
      const id = cardSlotKey(change.entry);
      const sig = cardSignature(change.entry);
      const before = signatures.get(id);
      // The first sight of a key with no card is not a change; anything after is.
      if (sig !== before && !(before === undefined && change.entry.card === null)) {
        signatures.set(id, sig);
        // Written as soon as the core has the card: stdout to a pipe is synchronous here.
        if (opts.json) io.stdout.write(jsonLine(cardLine(change.entry)));
        else if (!tty) io.stdout.write(plainCardLine(change.entry) + "\n");
      }
    } else if (change.type === "needs" && change.event && !tty) {
      const g = desk.snapshot().gateways.find((x) => x.id === change.gatewayId);
      if (opts.json) io.stdout.write(needsJson(needsLine(change.event, g?.url ?? null)) + "\n");
      else {
        const key = change.event.entry.sessionKey;
        const title = (key && g?.sessions.find((s) => s.key === key)?.title) ?? (key ? shortKeyTitle(key) : "An agent");
        io.stdout.write(plainNeedsLine(change.event, title, g?.url ?? null) + "\n");
      }
    } else if (change.type === "activity" && opts.json) {
      const id = gatewaySessionKey({ gatewayId: change.gatewayId, sessionKey: change.activity.sessionKey });
      const sig = activitySignature(change.activity);
      if (sig !== activitySignatures.get(id)) {
        activitySignatures.set(id, sig);
        io.stdout.write(jsonLine(activityLine(change.activity)));
      }
    }
    if (tty) scheduleDraw();
  });

  desk.start();
  if (tty) draw();
  // "running 12 min" moves on without a card change: redraw twice a minute.
  const ticker = tty ? setInterval(scheduleDraw, 30_000) : null;
  await Promise.race([finished, io.stopSignal]);
  if (ticker) clearInterval(ticker);
  desk.stop();
  await vault.flush();
  if (drawTimer) clearTimeout(drawTimer);
  if (tty) {
    draw();
    if (osc) io.stdout.write(CLEAR_PROGRESS);
  }
  return exitCode;
}

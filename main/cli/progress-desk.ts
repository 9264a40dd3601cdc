#!/usr/bin/env node
// The `progress-desk` command.
import { parseArgs } from "node:util";
import { channelOfVersion } from "../core/updates/availability.ts";
import { appVersion } from "../core/version.ts";
import { runHost } from "./host.ts";
import { checkSecretFlags, readBoundedStream, resolveSecrets, secretFlagWarnings, type SecretFlags } from "./secret-args.ts";
import { EXIT, runWatch } from "./watch.ts";

const USAGE = `Usage: progress-desk <command> [options]

Commands:
  watch     Follow progress cards in this terminal.
  host      Serve the Progress Desk pages on 127.0.0.1 for a browser; prints the page's
            address (with a per-launch secret) as the first line on stdout.

watch options:
  --json                    One JSON object per line (connection, card, activity and needs-you changes), for scripts.
  --answer-approvals        Read pending approvals and questions in full: asks the Gateway for the
                            approvals and questions scopes and declares this terminal an approval
                            surface (without it, only which runs wait for approval is shown).
  --url <ws-url>            Gateway URL (default: OPENCLAW_GATEWAY_URL, ~/.openclaw/openclaw.json, ws://127.0.0.1:18789).
  --token-file <file>       Read the Gateway token from a file, or from standard input with "-"
                            (default: OPENCLAW_GATEWAY_TOKEN or the config file).
  --password-file <file>    Read a Gateway password instead (or set OPENCLAW_GATEWAY_PASSWORD).
  --setup-code-file <file>  Read a setup code from \`openclaw qr\` instead.
  --token, --password, --setup-code <value>
                            The same, given on the command line: other users of this computer can
                            read them in the process list, so prefer the forms above.

host options:
  --port <n>                Port on 127.0.0.1 (default or 0: a free one). It never opens a browser.
  --url, --token-file, --password-file (and --token, --password) as for watch
                            (used for this run instead of Settings).

  --verbose                 Debug lines on stderr (watch and host); secrets are masked.
  --help, --version

Exit status: 0 stopped, 2 usage, 3 auth failed, 4 pairing required, 5 Gateway update required.
Credentials and the device identity are kept in $PROGRESS_DESK_HOME (default: the user config folder).
`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: "boolean", default: false },
        "answer-approvals": { type: "boolean", default: false },
        verbose: { type: "boolean", default: false },
        url: { type: "string" },
        token: { type: "string" },
        "token-file": { type: "string" },
        password: { type: "string" },
        "password-file": { type: "string" },
        "setup-code": { type: "string" },
        "setup-code-file": { type: "string" },
        port: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
        version: { type: "boolean", short: "v", default: false },
      },
    });
  } catch (err) {
    process.stderr.write(`progress-desk: ${(err as Error).message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.version) {
    // The command line has no update setting of its own: the channel is the version's.
    const version = appVersion();
    process.stdout.write(`progress-desk ${version} (${channelOfVersion(version)} channel)\n`);
    return EXIT.ok;
  }
  const command = positionals[0];
  if (values.help || !command) {
    (values.help ? process.stdout : process.stderr).write(USAGE);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  if (command !== "watch" && command !== "host") {
    process.stderr.write(`progress-desk: unknown command "${command}"\n\n${USAGE}`);
    return EXIT.usage;
  }
  const secretFlags: SecretFlags = {
    token: values.token,
    "token-file": values["token-file"],
    password: values.password,
    "password-file": values["password-file"],
    ...(command === "watch" ? { "setup-code": values["setup-code"], "setup-code-file": values["setup-code-file"] } : {}),
  };
  if (command === "host" && (values["setup-code"] !== undefined || values["setup-code-file"] !== undefined)) {
    process.stderr.write("progress-desk: host takes no setup code; pair with `progress-desk watch --setup-code-file` first\n");
    return EXIT.usage;
  }
  const checked = checkSecretFlags(secretFlags);
  if (!checked.ok) {
    process.stderr.write(`progress-desk: ${checked.error.message}\n`);
    return EXIT.usage;
  }
  if (values.url && !/^wss?:\/\//.test(values.url)) {
    process.stderr.write(`progress-desk: --url must start with ws:// or wss:// (got "${values.url}")\n`);
    return EXIT.usage;
  }
  for (const warning of secretFlagWarnings(secretFlags)) process.stderr.write(`progress-desk: ${warning}\n`);
  const resolved = await resolveSecrets(secretFlags, {
    readStdin: () => {
      if (process.stdin.isTTY) process.stderr.write("progress-desk: reading the secret from standard input; end it with Ctrl-D\n");
      return readBoundedStream(process.stdin);
    },
  });
  if (!resolved.ok) {
    process.stderr.write(`progress-desk: ${resolved.error.message}\n`);
    return EXIT.usage;
  }
  const secrets = resolved.value;
  const stopSignal = new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  if (command === "host") {
    const port = values.port === undefined ? 0 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      process.stderr.write(`progress-desk: --port must be a port number (got "${values.port}")\n`);
      return EXIT.usage;
    }
    return runHost(
      {
        port,
        verbose: values.verbose ?? false,
        ...(values.url ? { url: values.url } : {}),
        ...(secrets.token ? { token: secrets.token } : {}),
        ...(secrets.password ? { password: secrets.password } : {}),
      },
      { stdout: process.stdout, stderr: process.stderr, env: process.env, stopSignal },
    );
  }
  return runWatch(
    {
      json: values.json ?? false,
      answerApprovals: values["answer-approvals"] ?? false,
      verbose: values.verbose ?? false,
      ...(values.url ? { url: values.url } : {}),
      ...(secrets.token ? { token: secrets.token } : {}),
      ...(secrets.password ? { password: secrets.password } : {}),
      ...(secrets.setupCode ? { setupCode: secrets.setupCode } : {}),
    },
    { stdout: process.stdout, stderr: process.stderr, env: process.env, stopSignal },
  );
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`progress-desk: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  },
);

// The logger of `watch` and `host`: lines on stderr, after the command's own messages and
// apart from stdout (which scripts read). Warnings and errors always; with --verbose, the
// info and debug lines too.
import { createLogger, stderrLine, type Logger } from "../core/logger.ts";

export function stderrLogger(stderr: { write(s: string): boolean }, verbose: boolean): Logger {
  return createLogger({
    level: verbose ? "debug" : "warn",
    sink: (r) => void stderr.write(stderrLine(r)),
  });
}

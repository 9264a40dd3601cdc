// The one error type of the app, and the one rule for failures:
//   - an expected failure (bad input from a page or the command line, a malformed card from
//     the wire, a Gateway that cannot do something) is a value: a `Result` or an outcome the
//     caller branches on;
//   - a bug, or a refusal at a transport boundary that can only reject, throws a DeskError.
// `code` is for programs (tests, pages, exit statuses) and stays stable; `message` is for people.
// Imports nothing, so every layer (core, shell, host, pages) can use it.

/** The codes the app itself raises (Gateway codes pass through as they come). */
export const ERROR_CODES = {
  /** A message that breaks the page contract (shape, types, unknown verb). */
  badRequest: "BAD_REQUEST",
  /** A well-formed call the calling page may not make. */
  forbidden: "FORBIDDEN",
  /** An IPC call from a frame that is not one of ours. */
  untrustedSender: "UNTRUSTED_SENDER",
  /** A card from the wire that does not follow the card rules. */
  malformedCard: "MALFORMED_CARD",
  /** The Gateway lacks something this needs; updating OpenClaw fixes it. */
  updateRequired: "UPDATE_REQUIRED",
  /** A request made while the Gateway connection is down. */
  notConnected: "NOT_CONNECTED",
  /** A Gateway id no Gateway has (a page's stale reference, say). */
  unknownGateway: "UNKNOWN_GATEWAY",
  /** Wrong or unreadable command-line input. */
  usage: "USAGE",
  /** The browser host went away while a call was in flight. */
  disconnected: "DISCONNECTED",
  /** A core failure told to a page as it is. */
  failed: "FAILED",
} as const;

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

export class DeskError extends Error {
  override readonly name = "DeskError";
  /** Stable and machine-readable; an ErrorCode, or a code passed on from elsewhere (a Gateway, the OS). */
  readonly code: string;

  constructor(code: ErrorCode | (string & {}), message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True when `err` is a DeskError (with `code`, when given). */
export function isDeskError(err: unknown, code?: string): err is DeskError {
  return err instanceof DeskError && (code === undefined || err.code === code);
}

/** An expected failure as a value. */
export type Result<T, E = DeskError> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const failure = <E = DeskError>(error: E): Result<never, E> => ({ ok: false, error });

/** The value of a Result, or its error thrown: for callers whose failure is a bug. */
export function unwrap<T>(result: Result<T, unknown>): T {
  if (result.ok) return result.value;
  throw result.error;
}

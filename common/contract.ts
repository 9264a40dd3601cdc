// The whole surface a page can touch, defined once: a table of verbs, each with TypeBox
// schemas for its arguments and result. From the table come the `DeskApi` type a page
// uses, the runtime check of every call (main and the host run it before a handler), the
// type of the main-process handler map (desk-service), the Electron IPC channels (one per
// verb) and the page-side proxies (desk-proxy.ts, for the preload and the host bridge).
// A page asks with one of these verbs and hears the two events; nothing else crosses.
// Tokens never do: Gateway settings come back with `hasToken`-style flags only.
import Type, { type Static, type TSchema } from "typebox";
import { Value } from "typebox/value";
import type { CredentialStorage } from "./credential-storage.ts";
import type { ActivityMode, DeskChange, DeskSnapshot, DismissResult, NeedRecord, RefreshState } from "./model.ts";
import { DeskError, ERROR_CODES } from "./errors.ts";
import { SettingsPatchSchema, SettingsSchema } from "./settings-schema.ts";
import type { GatewaySettingsView, Milestone, Settings, SettingsPatch } from "./settings-schema.ts";
import { CHANNEL_PREFIX, channelFor, DESK_METHODS, EVENT_CHANNEL, isSafeExternalUrl, type DeskMethod } from "./verbs.ts";
import { isPage, PAGES, type Page } from "./pages.ts";
import type { UpdateView } from "./updates.ts";

export type { ActivityMode, CredentialStorage, DeskMethod, DismissResult, GatewaySettingsView, Milestone, Settings, SettingsPatch };
export { CHANNEL_PREFIX, channelFor, DESK_METHODS, EVENT_CHANNEL, isSafeExternalUrl };

// ——— argument shapes ———
// `refusal` (ours, not JSON Schema's) is the message a page gets when a value fails inside
// that schema; otherwise it gets the verb's usage line.

export const CardRefSchema = Type.Object(
  {
    gatewayId: Type.String({ maxLength: 200 }),
    sessionKey: Type.String({ maxLength: 1024 }),
    agentId: Type.Union([Type.Null(), Type.String({ maxLength: 64 })]),
  },
  { refusal: "card must be {gatewayId, sessionKey, agentId}" },
);
export type CardRef = Static<typeof CardRefSchema>;

/** A needs-you entry: its Gateway and its approval or question id (common/model.ts NeedRef). */
export const NeedRefSchema = Type.Object(
  { gatewayId: Type.String({ maxLength: 200 }), id: Type.String({ maxLength: 512 }) },
  // Exactly these two: the core finds the entry and builds every link from it, so a page has nothing else to say.
  { additionalProperties: false, refusal: "need must be {gatewayId, id}" },
);

/**
 * The person's answer to a needs-you entry (common/model.ts NeedAnswer): a decision, the
 * chosen labels per question id, or cancelling a question. Strict: the core checks every
 * value against the entry it holds (main/core/needs-answer.ts).
 */
export const NeedAnswerSchema = Type.Union(
  [
    Type.Object(
      {
        kind: Type.Union([Type.Literal("exec"), Type.Literal("plugin")]),
        decision: Type.Union([Type.Literal("allow-once"), Type.Literal("allow-always"), Type.Literal("deny")]),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        kind: Type.Literal("question"),
        answers: Type.Record(Type.String({ maxLength: 128 }), Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 25 }), {
          maxProperties: 20,
        }),
      },
      { additionalProperties: false },
    ),
    Type.Object({ kind: Type.Literal("question"), cancel: Type.Literal(true) }, { additionalProperties: false }),
  ],
  { refusal: "answer must be {kind, decision}, {kind: question, answers} or {kind: question, cancel: true}" },
);

// One literal per page of the table (an anyOf); typed as the table's page names.
export const PageSchema = Type.Unsafe<Page>(Type.Union(PAGES.map((p) => Type.Literal(p))));
export type { Page };

/** Diagnostics for a bug report, secrets redacted; `copied` when the app put them on the clipboard itself. */
export type DiagnosticsCopy = { text: string; copied: boolean };

const gatewayId = Type.String({ maxLength: 200 });
const secretText = (field: string) => Type.Optional(Type.String({ maxLength: 4096, refusal: `saveGateway: ${field} must be text` }));

/**
 * Secrets are write-only: set a string to replace, "" to remove, leave out to keep. They are
 * bound to the URL's origin: a URL on another server drops every one not given again.
 */
export const GatewayInputSchema = Type.Object({
  id: secretText("id"),
  label: Type.String({ maxLength: 80 }),
  color: Type.String({ maxLength: 32 }),
  url: Type.String({ maxLength: 2048, pattern: "^[wW][sS][sS]?://" }),
  token: secretText("token"),
  password: secretText("password"),
  setupCode: secretText("setupCode"),
  /** Y6: answer approvals and questions here; left out, the saved choice stays. */
  answerApprovals: Type.Optional(Type.Boolean({ refusal: "saveGateway: answerApprovals must be true or false" })),
});
export type GatewayInput = Static<typeof GatewayInputSchema>;

/** A result the core builds and types itself (common/model.ts): typed here, not re-checked. */
const made = <T>() => Type.Unsafe<T>({});

// ——— the verbs ———

type VerbSpec<A extends readonly TSchema[], O extends readonly TSchema[], R extends TSchema> = {
  /** The arguments, in order. */
  args: A;
  /** Arguments a page may leave out, after `args`. */
  optionalArgs?: O;
  result: R;
  /** How the call is written: the refusal a page gets for a bad argument. */
  usage: string;
};
const verb = <const A extends readonly TSchema[], R extends TSchema, const O extends readonly TSchema[] = []>(spec: VerbSpec<A, O, R>) =>
  spec;

type AnyVerb = VerbSpec<readonly TSchema[], readonly TSchema[], TSchema>;

/**
 * Every verb a page may call, by its name in verbs.ts (the compiler holds the two to the
 * same set). Every one returns a promise: over IPC and over the host socket alike.
 */
export const DESK_VERBS = {
  snapshot: verb({ args: [], result: made<DeskSnapshot>(), usage: "snapshot()" }),
  dismiss: verb({
    args: [CardRefSchema, Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.Boolean()],
    result: made<DismissResult>(),
    usage: "dismiss(card, revision, confirmed)",
  }),
  refresh: verb({ args: [CardRefSchema, Type.Boolean()], result: made<RefreshState | null>(), usage: "refresh(card, retry)" }),
  retryConnection: verb({ args: [gatewayId], result: Type.Void(), usage: "retryConnection(gatewayId)" }),
  getSettings: verb({ args: [], result: SettingsSchema, usage: "getSettings()" }),
  updateSettings: verb({ args: [SettingsPatchSchema], result: SettingsSchema, usage: "updateSettings(patch)" }),
  saveGateway: verb({
    args: [GatewayInputSchema],
    result: SettingsSchema,
    usage: "saveGateway({url: ws:// or wss://, label, color, …})",
  }),
  removeGateway: verb({ args: [gatewayId], result: SettingsSchema, usage: "removeGateway(gatewayId)" }),
  /** Opens an http, https or mailto link in the system browser; anything else is refused (false). */
  openExternal: verb({ args: [Type.String({ maxLength: 8192 })], result: Type.Boolean(), usage: "openExternal(url)" }),
  openPage: verb({
    args: [PageSchema],
    optionalArgs: [CardRefSchema],
    result: Type.Void(),
    usage: `openPage(${PAGES.join(" | ")}, card?)`,
  }),
  /** Settings only: versions, connection states and the last log lines, redacted (the app copies them where it can). */
  copyDiagnostics: verb({ args: [], result: made<DiagnosticsCopy>(), usage: "copyDiagnostics()" }),
  /**
   * Opens the card's session in the Control UI of its Gateway (common/session-link.ts: no
   * secret is ever in that link); false where no route can be built.
   */
  openSession: verb({ args: [CardRefSchema], result: Type.Boolean(), usage: "openSession(card)" }),
  /**
   * Opens a needs-you entry's Control UI page (`/approve/<id>`, `/ask/<id>`) on its Gateway,
   * built in main from the entry the core holds (no secret in the link); false when the entry
   * is gone or has no page.
   */
  openNeed: verb({ args: [NeedRefSchema], result: Type.Boolean(), usage: "openNeed({gatewayId, id})" }),
  /**
   * Answers a needs-you entry where this desk answers on its Gateway (Y13): the popover's and
   * the dashboard's alone. The entry, its kind and the decision or question answers are checked
   * against the entry the core holds; the result is the record it left.
   */
  answerNeed: verb({
    args: [NeedRefSchema, NeedAnswerSchema],
    result: made<NeedRecord>(),
    usage: "answerNeed({gatewayId, id}, {kind, decision} | {kind: question, answers} | {kind: question, cancel: true})",
  }),
  /** Hides the popover (Escape in it): closing is never an answer to anything. Nothing where there is no popover window. */
  closePopover: verb({ args: [], result: Type.Void(), usage: "closePopover()" }),
  /**
   * U1, U6: checks for a new version of the app now, as the tray's "Check for Updates…" does; asked
   * again within the rate limit it only answers the state. The result is the update state.
   */
  checkForUpdates: verb({ args: [], result: made<UpdateView>(), usage: "checkForUpdates()" }),
  /** U6: restarts into the downloaded update; nothing unless one is ready (false). */
  installUpdate: verb({ args: [], result: Type.Boolean(), usage: "installUpdate()" }),
} satisfies { [M in DeskMethod]: AnyVerb };

type Verbs = typeof DESK_VERBS;

type Statics<A> = { -readonly [K in keyof A]: A[K] extends TSchema ? Static<A[K]> : never };
/** A verb's optional schemas; none when its entry names none (the spec's type then says only "a list"). */
type OptionalArgsOf<M extends DeskMethod> =
  NonNullable<Verbs[M]["optionalArgs"]> extends infer O extends readonly TSchema[] ? (number extends O["length"] ? [] : O) : [];
/** A verb's arguments as TypeScript sees them (optional ones may be left out). */
export type VerbArgs<M extends DeskMethod> = [...Statics<Verbs[M]["args"]>, ...Partial<Statics<OptionalArgsOf<M>>>];
export type VerbResult<M extends DeskMethod> = Static<Verbs[M]["result"]>;

/** The verbs as a page calls them. */
export type DeskVerbs = { [M in DeskMethod]: (...args: VerbArgs<M>) => Promise<VerbResult<M>> };
/** What main runs for each verb: every verb, each with its own argument and result types. */
export type DeskHandlers = { [M in DeskMethod]: (...args: VerbArgs<M>) => VerbResult<M> | Promise<VerbResult<M>> };

export type DeskApi = DeskVerbs & {
  onChange(listener: (change: DeskChange) => void): () => void;
  onSettings(listener: (settings: Settings) => void): () => void;
};

export type DeskEvent = { type: "change"; change: DeskChange } | { type: "settings"; settings: Settings };

// ——— validation: main and the host check every message against the contract ———

/** A message that breaks the contract: a DeskError with code BAD_REQUEST. */
const badRequest = (message: string): DeskError => new DeskError(ERROR_CODES.badRequest, message);

// mutation-scope:start (scripts/mutation.ts mutates only the checks between these markers)
// ——— who may ask: the verbs that reach beyond the app are the Settings page's alone ———
// Turning on launch-at-login, taking a system-wide key, or pointing the app at another
// Gateway (with its credentials) outlives the page that asked: a popover or dashboard that
// rendered something hostile must not be able to do it.

/** Verbs only the Settings page may call. */
export const SETTINGS_ONLY_METHODS: ReadonlySet<DeskMethod> = new Set<DeskMethod>(["saveGateway", "removeGateway", "copyDiagnostics"]);
/**
 * Verbs only the popover and the dashboard may call: an answer is given where the entry is
 * shown whole (Y14), never from Settings, a notification or the tray.
 */
export const ANSWER_PAGE_METHODS: ReadonlySet<DeskMethod> = new Set<DeskMethod>(["answerNeed"]);
const ANSWER_PAGES: ReadonlySet<string> = new Set<Page>(["popover", "dashboard"]);
/**
 * Settings only the Settings page may change (updateSettings patches that name them are refused
 * elsewhere). Answering for the Local Gateway is a Gateway change, as saveGateway is (Y15).
 */
export const SETTINGS_ONLY_KEYS: ReadonlySet<keyof SettingsPatch> = new Set<keyof SettingsPatch>([
  "launchAtLogin",
  "popoverShortcut",
  "localAnswerApprovals",
  // Which versions the app installs on itself (U1, U4) is the person's choice, made in Settings.
  "updates",
]);

/**
 * Why `caller` may not make this call, or null when it may. `args` are the validated
 * arguments (validateArgs). The one place the rule lives: Electron IPC and the host both
 * reach it through the desk service.
 */
export function forbiddenReason(method: string, args: readonly unknown[], caller: unknown): string | null {
  if (!isPage(caller)) return "the calling page is not known";
  if (ANSWER_PAGE_METHODS.has(method as DeskMethod) && !ANSWER_PAGES.has(caller)) {
    return `${method} is only accepted from the popover and the dashboard (asked by the ${caller})`;
  }
  if (caller === "settings") return null;
  if (SETTINGS_ONLY_METHODS.has(method as DeskMethod)) return `${method} is only accepted from the Settings page (asked by the ${caller})`;
  if (method === "updateSettings") {
    const patch = args[0] as Record<string, unknown>;
    const keys = Object.keys(patch).filter((k) => SETTINGS_ONLY_KEYS.has(k as keyof SettingsPatch));
    if (keys.length > 0) return `${keys.join(" and ")} can only be changed from the Settings page (asked by the ${caller})`;
  }
  return null;
}

type Annotated = TSchema & { refusal?: string; description?: string; properties?: Record<string, TSchema>; items?: TSchema };

/**
 * What a page is told about a value `schema` refused, from the path to the first fault:
 * the deepest `refusal` on it, or a described setting below that by its path and rule;
 * otherwise the verb's usage.
 */
function refusalFor(schema: TSchema, value: unknown, usage: string): string {
  const path = (Value.Errors(schema, value)[0]?.instancePath ?? "").split("/").slice(1);
  let node: Annotated | undefined = schema;
  let message = (schema as Annotated).refusal ?? usage;
  path.forEach((key, depth) => {
    node = node?.properties?.[key] ?? node?.items;
    if (node?.refusal !== undefined) message = node.refusal;
    else if (node?.description !== undefined) message = `${usage}: ${path.slice(0, depth + 1).join(".")} must be ${node.description}`;
  });
  return message;
}

/** Checks a verb's arguments against its schemas; returns them (unknown fields dropped) or throws a BAD_REQUEST DeskError. */
export function validateArgs(method: string, args: unknown): unknown[] {
  if (!Object.hasOwn(DESK_VERBS, method)) throw badRequest(`unknown method ${JSON.stringify(method)}`);
  if (!Array.isArray(args) || args.length > 3) throw badRequest("arguments must be a short list");
  const spec: AnyVerb = DESK_VERBS[method as DeskMethod];
  const required = spec.args;
  const optional = spec.optionalArgs ?? [];
  // A left-out optional argument may arrive as a trailing undefined (IPC keeps it).
  let given = args.length;
  while (given > required.length && args[given - 1] === undefined) given -= 1;
  if (given > required.length + optional.length) {
    throw badRequest(required.length + optional.length === 0 ? `${method} takes no arguments` : spec.usage);
  }
  if (given < required.length) throw badRequest(spec.usage);
  const schemas = [...required, ...optional].slice(0, given);
  const refusals = schemas.flatMap((schema, i) => (Value.Check(schema, args[i]) ? [] : [refusalFor(schema, args[i], spec.usage)]));
  // The usage line, when it applies, says the most: it shows the whole call.
  const [firstRefusal] = refusals;
  if (firstRefusal !== undefined) throw badRequest(refusals.find((r) => r === spec.usage) ?? firstRefusal);
  return schemas.map((schema, i) => Value.Clean(schema, Value.Clone(args[i])));
}
// mutation-scope:end

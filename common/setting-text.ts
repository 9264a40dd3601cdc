// What a page says about each setting it may change: its title, description, unit and the
// label of each choice, plus the limits and choices the page reads from the schema.
//
// A typed table rather than TypeBox `title`/`description` options: a schema's `description`
// already holds the value rule a refusal quotes ("a whole number from 1 to 1440"), and the
// compiler can't make a schema option required, while it makes this table name every
// setting of SettingsPatch, and every choice of a setting that has several, exactly once.
import type { TSchema } from "typebox";
import { SettingsPatchSchema, type SettingsPatch } from "./settings-schema.ts";

type SchemaNode = TSchema & { properties?: Record<string, TSchema> };

type IsGroup<V> = V extends readonly unknown[] ? false : V extends Record<string, unknown> ? true : false;
/** Every setting a page may change, by its dotted path: "detector.silentMinutes". */
export type SettingPath<T = SettingsPatch, P extends string = ""> = {
  [K in keyof T & string]-?: IsGroup<NonNullable<T[K]>> extends true ? SettingPath<NonNullable<T[K]>, `${P}${K}.`> : `${P}${K}`;
}[keyof T & string];
type ValueAt<T, P extends string> = P extends `${infer K}.${infer Rest}`
  ? K extends keyof T
    ? ValueAt<NonNullable<T[K]>, Rest>
    : never
  : P extends keyof T
    ? NonNullable<T[P]>
    : never;
type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;
/** A setting with a few named values (not a boolean, not free text) must label each one. */
type Choices<V> = [V] extends [string] ? (string extends V ? false : true extends IsUnion<V> ? true : false) : false;

/** What a page says about a setting. */
export type SettingWords = {
  /** What the control is called. */
  title: string;
  /** What it does, in a line; `backticks` mark code. */
  description?: string;
  /** What an empty text field means. */
  placeholder?: string;
  /** A number's unit, after the field. */
  unit?: string;
  /** A label for each of its values. */
  options?: Readonly<Record<string, string>>;
};
/** The words for a setting whose value is V: labels for exactly its values when it has a few. */
type SettingText<V> = Omit<SettingWords, "options"> &
  (Choices<V> extends true ? { options: Record<V & string, string> } : { options?: never });

export const SETTING_TEXT: { [P in SettingPath]: SettingText<ValueAt<SettingsPatch, P>> } = {
  showCards: {
    title: "Show task progress cards",
    description: "Off hides the cards in the popover only. Agents keep working and saved progress stays.",
  },
  collapseByDefault: {
    title: "Collapse task progress by default on desktop",
    description: "New cards start closed. A card you opened or closed keeps your choice.",
  },
  "notifications.enabled": { title: "Notify on milestones", description: "Milestones only, never every update." },
  "notifications.milestones.newCard": { title: "A new card" },
  "notifications.milestones.stepCompleted": { title: "A step completed" },
  "notifications.milestones.allCompleted": { title: "All steps completed" },
  "notifications.milestones.pausedOrBlocked": { title: "Work paused or blocked" },
  "notifications.milestones.refreshFailed": { title: "A refresh failed" },
  "notifications.milestones.noProgress": { title: "A run stopped making progress" },
  "notifications.quietHours.enabled": { title: "Quiet hours" },
  "notifications.quietHours.start": { title: "Quiet hours start" },
  "notifications.quietHours.end": { title: "Quiet hours end" },
  trayTitle: {
    title: "Show a title next to the menu-bar icon",
    description: "The focused card in a few words, for example “2/5 Repair session owner”.",
  },
  launchAtLogin: { title: "Open at login" },
  popoverShortcut: {
    title: "Popover shortcut",
    description: "A global shortcut that opens and closes the popover, for example `CommandOrControl+Shift+P`. Empty: off.",
    placeholder: "Off",
  },
  dashboardOnTop: {
    title: "Keep the dashboard on top",
    description: "The dashboard window stays above other windows (menu-bar app only).",
  },
  "activity.mode": {
    title: "Tool lines under a card",
    description: "What the agent is doing right now: tool names and short labels, never their output.",
    options: { all: "Every tool call", new: "When the tool changes", off: "Off" },
  },
  "activity.commandText": {
    title: "Show command text",
    description: "Off keeps the line (“Shell”) but hides the command itself.",
    options: { raw: "The command itself", status: "Only the tool's name" },
  },
  "detector.enabled": {
    title: "Point out runs that stopped making progress",
    description: "An observation beside the card (“No new activity for 12 min”); the card itself is never changed.",
  },
  "detector.pollingRepeats": { title: "Same call repeated", unit: "times" },
  "detector.silentMinutes": { title: "Silent for", unit: "min" },
  pinned: { title: "Pinned cards", description: "Cards kept on the dashboard, in the order they were pinned." },
  localAnswerApprovals: {
    title: "Answer approvals and questions from Progress Desk",
    description:
      "Progress Desk asks this Gateway for the approvals and questions scopes and becomes a place to answer them: an approval waits for you here instead of being denied when no other app is open. On another machine the Gateway may ask you to approve that upgrade (`openclaw devices list`). You can still answer in the Control UI.",
  },
  "updates.automatic": {
    title: "Update automatically",
    description:
      "Checks for a new version every few hours and downloads it in the background. It installs when you quit, or at once with Restart to Update.",
  },
  "updates.beta": {
    title: "Get beta versions",
    description: "Also offers test versions before their release. They may have rough edges.",
  },
  credentialStorage: {
    title: "Keep new secrets unencrypted",
    description:
      "The saved secrets stay encrypted on disk and come back once the keychain does. Until then you can keep new tokens and passwords unencrypted, in a separate file only your account can read.",
  },
};

/** The schema of one setting a page may change. */
export function settingSchema(path: SettingPath): TSchema {
  let node: SchemaNode | undefined = SettingsPatchSchema;
  for (const key of path.split(".")) node = node?.properties?.[key] as SchemaNode | undefined;
  if (node === undefined) throw new Error(`no setting ${path}`);
  return node;
}

/** A number setting's bounds, as its schema states them (whole numbers step by 1). */
export function settingLimits(path: SettingPath): { min?: number; max?: number; step?: number } {
  const s = settingSchema(path) as TSchema & { type?: unknown; minimum?: number; maximum?: number; multipleOf?: number };
  const step = s.multipleOf ?? (s.type === "integer" ? 1 : undefined);
  return {
    ...(s.minimum === undefined ? {} : { min: s.minimum }),
    ...(s.maximum === undefined ? {} : { max: s.maximum }),
    ...(step === undefined ? {} : { step }),
  };
}

/** A setting's values in the schema's order, each with its label. */
export function settingChoices<P extends SettingPath>(path: P): { value: ValueAt<SettingsPatch, P>; label: string }[] {
  const literals = ((settingSchema(path) as TSchema & { anyOf?: { const?: unknown }[] }).anyOf ?? []).map((s) => s.const);
  const labels = (SETTING_TEXT[path] as SettingWords).options;
  return literals.map((value) => ({ value: value as ValueAt<SettingsPatch, P>, label: labels?.[String(value)] ?? String(value) }));
}

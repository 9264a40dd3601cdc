// What every section of the Settings page is given: the settings as main last sent them,
// and how to change them (App.svelte shows a refusal).
import type { Settings, SettingsPatch } from "../../common/contract.ts";

export type SectionProps = {
  s: Settings;
  patch: (p: SettingsPatch) => Promise<void>;
};

/** A control's new value, from its change event. */
export const checked = (e: Event): boolean => (e.currentTarget as HTMLInputElement).checked;
export const value = (e: Event): string => (e.currentTarget as HTMLInputElement).value;

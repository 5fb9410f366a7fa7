// The user's settings, in extension storage (shared by the panel and the content scripts).

import { ext } from './browser.js';

export const SETTINGS_KEY = 'bai:settings';

export const DEFAULT_SETTINGS = Object.freeze({
  /** 'each_action' | 'once_per_workflow' | 'auto' (see crate/src/policy). */
  approvalMode: 'once_per_workflow',
  /** Insert BAI's lines into the composer without sending them. */
  insertOnly: false,
  /** Words that make a click risky; null means the built-in list. */
  riskyWords: null,
});

export async function loadSettings() {
  const stored = (await ext.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] ?? {};
  return { ...DEFAULT_SETTINGS, ...stored };
}

export async function saveSetting(name, value) {
  const current = (await ext.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] ?? {};
  await ext.storage.local.set({ [SETTINGS_KEY]: { ...current, [name]: value } });
}

/** The settings as the Rust policy reads them (crate::policy::PolicySettings). */
export function policySettingsJson(settings) {
  const policy = { approval_mode: settings.approvalMode };
  if (Array.isArray(settings.riskyWords)) policy.risky_words = settings.riskyWords;
  return JSON.stringify(policy);
}

import type { Queryable } from '../db/driver.js';
import type { SecretBox } from '../host/secret-box.js';

// The key that seals the app accounts of automations, per open workspace (its driver): the same
// SecretBox as the app host's source accounts. The workspace registers it when it opens, before
// its automation worker runs anything, so every reader of that driver unseals with it. A reader
// given a transaction (not the driver itself) gets the process's box when only one was ever
// registered; with several workspaces in one process it must pass the driver.

const boxes = new WeakMap<object, SecretBox>();
let only: SecretBox | null | undefined;

export function useAutomationBox(driver: Queryable, box: SecretBox): void {
  boxes.set(driver, box);
  only = only === undefined || only === box ? box : null;
}

export function automationBox(q: Queryable): SecretBox | undefined {
  return boxes.get(q) ?? only ?? undefined;
}

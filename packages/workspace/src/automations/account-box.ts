import type { Queryable } from '../db/driver.js';
import type { SecretBox } from '../host/secret-box.js';

// The key that seals the app accounts of automations, per open workspace (its driver): the same
// SecretBox as the app host's source accounts. The workspace registers it when it opens, before
// its automation worker runs anything, so every reader of that driver unseals with it.

const boxes = new WeakMap<object, SecretBox>();

export function useAutomationBox(driver: Queryable, box: SecretBox): void {
  boxes.set(driver, box);
}

export function automationBox(q: Queryable): SecretBox | undefined {
  return boxes.get(q);
}

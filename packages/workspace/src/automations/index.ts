export { AutomationWorker, type AutomationWorkerOptions } from './automation-worker.js';
export { automationsRouter } from './automations-router.js';
export { type Automation, type AutomationInput, automationInput } from './definition.js';
export { fillTemplate } from './entity-shapes.js';
export { createAutomation, listRuns, queueButtonRun, type RunRecord } from './store.js';

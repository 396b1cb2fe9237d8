/**
 * The deterministic part of triage's face, for code in the workflow bundle: priorities and their aging.
 */
export { priorityKey } from './priorities';
export type { Priority } from './priorities';
export { agedPriorityKey } from './priority';

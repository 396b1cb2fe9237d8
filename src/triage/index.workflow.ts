/**
 * TODO face header
 */
export { priorityKey } from './priorities';
export type { Priority } from './priorities';
export { agedPriorityKey } from './priority';

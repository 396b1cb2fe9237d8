/**
 * The deterministic part of drafting's face, for code in the workflow bundle: a draft's status
 * words, which the email's status shares, and the internal source ids an approved text must not name.
 */
export { DRAFT_STATUS } from './drafting.contract';
export { internalSourceIds } from './source-ids';

/**
 * The deterministic part of drafting's face, for code in the workflow bundle: a draft's status
 * words, which the email's status shares.
 */
export { DRAFT_STATUS } from './drafting.contract';

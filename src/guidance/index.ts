/**
 * The face of guidance/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * Guidance: the team's instructions for drafts per installation, mailbox and category, versioned
 * and audited, and the version a draft was written under.
 */
export { knownNames, saveGuidance } from './guidance-changes';
export { guidanceAmong, guidanceIds } from './guidance-for-draft';
export { formatScope, parseScope } from './guidance-scope';
export { DEFAULT_SCOPE, GUIDANCE_AUDIT_EVENTS, GUIDANCE_MAX_CHARS, NO_GUIDANCE } from './guidance.contract';
export type { GuidanceSource, GuidanceVersion } from './guidance.port';

/**
 * The face of autonomy/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * Earned autonomy: which drafts may go out without a person, judged per mailbox and category on a
 * Wilson bound; its activities, store, policy, status and commands. It reads what named replay
 * runs add through its `ReplayEvidenceReader` port, which the replay feature implements.
 */
export { createTemporalAutoApprover } from './auto-approver.temporal';
export { AUTONOMY_DEFAULTS, judgeRecord, policyLabel } from './autonomy-policy';
export type { AutonomyPolicy } from './autonomy-policy';
export { readAutonomyStatus, switchAutonomy } from './autonomy-status';
export { autonomyOff, createAutonomyActivities, stopAutomaticSend } from './autonomy.activities';
export { readAutonomyConfig } from './autonomy.config';
export { AUTONOMY_EVENTS, AUTO_SEND_STATES } from './autonomy.contract';
export type { AutoApprover, AutonomyStore } from './autonomy.port';
export type { ReplayEvidence, ReplayEvidenceReader, ReplayRunCheck } from './replay-evidence';

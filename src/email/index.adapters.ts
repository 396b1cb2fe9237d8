/**
 * The part of email/'s face that loads a driver or SDK: its adapters, and the commands and assemblies
 * that build them. The processes that wire the features import it, and the few features that assemble
 * another's adapters; everything else takes email/index.ts, which loads none.
 */
export { approvalCommands, redraft, resend } from './decisions/approval.cli';
export { createTemporalDecisions } from './decisions/decisions.temporal';
export { createMariaDbDraftStore } from './draft/draft-store.mariadb';
export { createEmailActivities } from './email.activities';
export { answerCommand } from './intake/answer.cli';
export { createMariaDbBounceLedger } from './intake/bounce-ledger.mariadb';
export { createMariaDbOutsideReplies } from './answered-elsewhere/outside-replies.mariadb';
export { temporalPullBackStart } from './intake/pull-back.temporal';
export { pullBack } from './intake/pull-back';
export { createMariaDbMessageStore } from './message-store.mariadb';
export { createMariaDbSendLedger } from './send/send-ledger.mariadb';
export { createTemporalSignals, createTemporalStarter, starterLimits } from './workflow-starter.temporal';

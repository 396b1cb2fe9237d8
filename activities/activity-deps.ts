import type { AutonomyPolicy } from '../src/autonomy/autonomy-policy';
import type { AutoApprover, AutonomyStore } from '../src/autonomy/autonomy.port';
import type { EmailDeps } from '../src/email/email-deps';
import type { CasesDeps } from '../src/cases/cases-deps';
import type { WorkflowInspector } from '../src/operations/workflow-inspector.port';
import type { IdleDeps } from '../src/mailboxes/watch.activities';
import type { RetentionDeps } from '../src/privacy/retention.activities';
import type { ReplayDeps } from '../src/replay/replay.activities';

export type { MailSettings } from '../src/email/email-deps';
export type { CaseDeadlinePorts } from '../src/cases/cases-deps';

/**
 * Every activity's dependencies: each feature declares what its activities need (`EmailDeps`,
 * `CasesDeps`, …) and this registry composes them; the worker's wiring (workers/wiring.ts) builds one.
 */
export interface ActivityDeps extends EmailDeps, CasesDeps {
  inspector: WorkflowInspector;
  /** Push intake (IMAP IDLE watchers); absent: a worker that watches nothing. */
  idle?: IdleDeps;
  /** Earned autonomy (AUTONOMY_FILE, the switch); absent: every draft waits for a person. */
  autonomy?: { store: AutonomyStore; approver: AutoApprover; policy: AutonomyPolicy | null };
  /** The retention purge (RETENTION_*); absent: purgeExpired purges nothing. */
  retention?: RetentionDeps;
  /** Replays of a team's history (src/replay/); absent: this worker drafts no replay. */
  replay?: ReplayDeps;
}

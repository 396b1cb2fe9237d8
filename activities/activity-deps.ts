import type { AutonomyPolicy, AutoApprover, AutonomyStore } from '../src/autonomy';
import type { EmailDeps } from '../src/email';
import type { CasesDeps } from '../src/cases';
import type { WorkflowInspector } from '../src/operations';
import type { IdleDeps } from '../src/mailboxes';
import type { RetentionDeps } from '../src/privacy';
import type { ReplayDeps } from '../src/replay';

export type { MailSettings } from '../src/email';
export type { CaseDeadlinePorts } from '../src/cases';

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

/**
 * The approval of an automatic send, made through the same decisions adapter as a person's: the
 * email workflow's `approve` Update bound to the draft id. The workflow's validator is the judge:
 * a person who decided first, or a newer draft, refuses it.
 */
import type { ApprovalOutcome, AutoApprover } from './autonomy.port';
import type { TemporalDecisions } from '../email';

export function createTemporalAutoApprover(decisions: Pick<TemporalDecisions, 'decide' | 'state'>): AutoApprover {
  return {
    async approve(emailId, input): Promise<ApprovalOutcome> {
      const outcome = await decisions.decide(emailId, 'approve', { draftId: input.draftId, by: input.by });
      return outcome.ok ? { ok: true } : outcome;
    },
    async decision(emailId) {
      const s = await decisions.state(emailId);
      return s?.decision ? { by: s.decision.by, draftId: s.decision.draftId } : null;
    },
  };
}

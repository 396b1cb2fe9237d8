/**
 * The cases feature's side of the email's `EmailCase` port (src/email/email-case.port.ts): an
 * email's index step joins its case, its draft reads the case's other mails, and each status it
 * reaches moves the case. Ports are read on use, not captured: tests swap them after construction.
 */
import type { EmailCase } from '../email';
import { caseAfterStatus, caseContext, joinCase } from './case.activities';
import type { CasesDeps } from './cases-deps';

export function createEmailCase(
  deps: Pick<CasesDeps, 'messages' | 'audit' | 'signals' | 'mailboxes' | 'case' | 'caseReplies' | 'caseDesk'>,
): EmailCase {
  return {
    async join(email, alreadyTold) {
      await joinCase(deps, email, alreadyTold);
    },
    context: (email) => caseContext(deps, email),
    afterStatus: (emailId, status) => caseAfterStatus(deps, emailId, status),
  };
}

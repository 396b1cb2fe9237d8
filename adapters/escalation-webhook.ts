import { FAILURE_TYPES } from '../lib/contract';
import { PermanentError, TransientError, errorMessage } from '../lib/errors';
import type { EscalationNotice, EscalationNotifier } from '../ports/escalation-notifier';

export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Posts an overdue case as JSON to a webhook (chat, ticketing, paging). The `Idempotency-Key`
 * header is the same on every retry of the same breach, so a receiver that honours it files it
 * once. Redirects are not followed: the URL in the registry is the only place the case goes.
 * Messages name no URL (its path often carries a token). 2xx is delivered; 408, 429 and 5xx may heal; any other answer will not without a fix.
 */
export function createWebhookNotifier(opts: { timeoutMs?: number; fetch?: typeof fetch } = {}): EscalationNotifier {
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  return {
    async notify(url: string, n: EscalationNotice): Promise<void> {
      const body = JSON.stringify({
        event: 'case_overdue',
        caseId: n.caseId,
        mailbox: n.mailboxId,
        correspondent: n.correspondent,
        subject: n.subject,
        priority: n.priority,
        dueAt: n.dueAt,
        overdueBySeconds: n.overdueBySeconds,
      });
      let res: Response;
      try {
        res = await doFetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': n.idempotencyKey, 'user-agent': 'email-rag' },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        const why = (err as { name?: string }).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : errorMessage(err);
        throw new TransientError(`not reached: ${why}`, FAILURE_TYPES.escalationFailed, { cause: err });
      }
      const text = (await res.text().catch(() => '')).replace(/\s+/g, ' ').trim().slice(0, 200);
      if (res.status >= 200 && res.status < 300) return;
      const message = `answered HTTP ${res.status}${text ? `: ${text}` : ''}`;
      if (res.status === 408 || res.status === 429 || res.status >= 500) throw new TransientError(message, FAILURE_TYPES.escalationFailed);
      throw new PermanentError(message, FAILURE_TYPES.escalationFailed);
    },
  };
}

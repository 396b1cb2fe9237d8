import { createHmac } from 'node:crypto';
import { FAILURE_TYPES } from '../platform/contract';
import { PermanentError, TransientError, errorMessage } from '../platform/errors';
import type { EscalationNotice, EscalationNotifier } from './escalation-notifier.port';

export const WEBHOOK_TIMEOUT_MS = 10_000;

/** Headers of a signed POST: the time it was signed (Unix seconds) and `v1=<hex HMAC-SHA256>`. */
export const WEBHOOK_SIGNATURE_HEADERS = { timestamp: 'x-email-rag-timestamp', signature: 'x-email-rag-signature' } as const;

/**
 * The signature a receiver recomputes: HMAC-SHA256 with the shared secret over
 * `<timestamp>.<raw body>`. The timestamp is signed too, so a receiver that refuses old ones
 * (say, more than five minutes) is safe from a replayed request.
 */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * Posts an overdue case as JSON to a webhook (chat, ticketing, paging). The `Idempotency-Key`
 * header is the same on every retry of the same breach, so a receiver that honours it files it
 * once. Redirects are not followed: the URL in the registry is the only place the case goes.
 * Messages name no URL (its path often carries a token). 2xx is delivered; 408, 429 and 5xx may heal; any other answer will not without a fix.
 * With a signing secret for the notice's mailbox, each POST is signed (WEBHOOK_SIGNATURE_HEADERS);
 * the secret is read at each notice, so a rotated one is used without a restart.
 */
export function createWebhookNotifier(
  opts: { timeoutMs?: number; fetch?: typeof fetch; signingSecret?: (mailboxId: string) => string | undefined; now?: () => number } = {},
): EscalationNotifier {
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
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'idempotency-key': n.idempotencyKey,
        'user-agent': 'email-rag',
      };
      // A secret that cannot be read throws its ConfigError here: recorded as the failed escalation, nothing unsigned goes out.
      const secret = opts.signingSecret?.(n.mailboxId);
      if (secret) {
        const timestamp = Math.floor((opts.now?.() ?? Date.now()) / 1000);
        headers[WEBHOOK_SIGNATURE_HEADERS.timestamp] = String(timestamp);
        headers[WEBHOOK_SIGNATURE_HEADERS.signature] = webhookSignature(secret, timestamp, body);
      }
      let res: Response;
      try {
        res = await doFetch(url, {
          method: 'POST',
          headers,
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

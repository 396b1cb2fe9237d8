import { DateTime } from 'luxon';
import type { EscalationNotice, EscalationNotifier } from './escalation-notifier.port';
import type { MailboxDirectory } from '../mailboxes';

const TEXTS = {
  de: {
    subject: (s: string) => `[überfällig] ${s}`,
    body: (n: EscalationNotice, due: string, overdue: string) =>
      `Der Fall ${n.caseId} im Postfach ${n.mailboxId} ist überfällig.\n\n` +
      `Kunde:      ${n.correspondent}\nBetreff:    ${n.subject}\nPriorität:  ${n.priority}\n` +
      `Fällig:     ${due}\nÜberfällig: ${overdue} (Geschäftszeit)\n\n` +
      `Die Antwort an den Kunden steht aus. Der Fall liegt in der Review-Inbox.\n`,
  },
  en: {
    subject: (s: string) => `[overdue] ${s}`,
    body: (n: EscalationNotice, due: string, overdue: string) =>
      `Case ${n.caseId} in mailbox ${n.mailboxId} is overdue.\n\n` +
      `Customer: ${n.correspondent}\nSubject:  ${n.subject}\nPriority: ${n.priority}\n` +
      `Due:      ${due}\nOverdue:  ${overdue} (business time)\n\n` +
      `The customer is still waiting for an answer. The case is in the review inbox.\n`,
  },
};

/**
 * Mails an overdue case to the mailbox's escalation address, from the mailbox's own identity
 * through its own SMTP server. The Message-ID derives from the notice's key: a retried notice is
 * the same message, which receiving systems recognise as a duplicate.
 */
export function createEscalationMailNotifier(mailboxes: MailboxDirectory): EscalationNotifier {
  return {
    async notify(to: string, n: EscalationNotice): Promise<void> {
      const served = mailboxes.get(n.mailboxId);
      const from = served.entry.smtp.from;
      const t = TEXTS[served.entry.language];
      const zone = served.entry.deadlines?.businessHours?.timeZone ?? 'UTC';
      const due = `${DateTime.fromISO(n.dueAt, { zone }).toFormat('yyyy-LL-dd HH:mm ZZ')} (${zone})`;
      const overdue = `${Math.floor(n.overdueBySeconds / 3600)}h${String(Math.floor((n.overdueBySeconds % 3600) / 60)).padStart(2, '0')}m`;
      const domain = from.address.split('@')[1] ?? 'localhost';
      await served.sender.send(
        {
          from,
          to: { name: '', address: to },
          subject: t.subject(n.subject || n.caseId),
          text: t.body(n, due, overdue),
          messageId: `<${n.idempotencyKey}@${domain}>`,
        },
        { beforeData: async () => undefined, beforeFinalDot: async () => undefined },
      );
    },
  };
}

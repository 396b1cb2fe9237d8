/**
 * What the tests with a real spamd share (test/support/services/spamd.ts): real spam from
 * SpamAssassin's test set that spamd scores above 5 and the built-in check lets through, copies of
 * it that are messages of their own, a customer's plain mail, the parse step on a delivered mail,
 * a harness whose product asks the test's spamd, and the audit rows of one email.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import type { Pool } from '../../src/platform/pool.mariadb';
import { activityHarness, type inboxDelivery } from '../activities/support';
import type { Spamd } from './services/spamd';

export const SPAM = readFileSync(path.join(__dirname, '../fixtures/spam-corpus/spamassassin/spam/015'), 'latin1');

/** The spam with its own Message-ID (`<id>`), from `from` when given (From and Reply-To). */
export function spamCopy(messageId: string, from?: string): string {
  const copy = SPAM.replace(/^Message-ID: <[^>]+>/im, `Message-ID: <${messageId}>`);
  return from ? copy.replace(/^From: .*$/im, `From: <${from}>`).replace(/^Reply-To: .*$/im, `Reply-To: <${from}>`) : copy;
}

/** A customer's plain mail from `from`, Message-ID `<id>`. */
export function customerMail(from: string, messageId: string): string {
  return [
    `From: Erika Mustermann <${from}>`,
    'To: support@example.test',
    'Subject: Rechnung doppelt abgebucht',
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <${messageId}>`,
    '',
    'Guten Tag, mein Abo wurde diesen Monat zweimal abgebucht. Bitte erstatten Sie einen Betrag. Viele Grüße, Erika Mustermann',
    '',
  ].join('\r\n');
}

type Harness = ReturnType<typeof activityHarness>;

/** The harness of a test stack whose product asks `spamd` (TRIAGE_SPAMD); close it after use. */
export function harnessWithSpamd(env: Record<string, string>, spamd: Pick<Spamd, 'address'>): Harness {
  return activityHarness(loadConfig({ ...env, TRIAGE_SPAMD: spamd.address }));
}

/** Delivers `raw` to the test mailbox and runs the fetch and parse steps with `harness`. */
export async function parseDelivered(harness: Harness, deliver: ReturnType<typeof inboxDelivery>, raw: string) {
  const input = await deliver(raw);
  await harness.run(input.emailId, harness.activities.fetchEmail, input);
  const summary = await harness.run(input.emailId, harness.activities.parseEmail, { emailId: input.emailId });
  return { emailId: input.emailId, summary };
}

export interface AuditRow {
  actor: string | null;
  error_class: string | null;
  message: string;
  details: string;
}

/** The audit rows of one email and event type, oldest first. */
export async function auditRows(pool: Pool, emailId: string, eventType: string): Promise<AuditRow[]> {
  return (await pool.query('SELECT actor, error_class, message, details FROM audit_log WHERE email_id = ? AND event_type = ? ORDER BY id', [
    emailId,
    eventType,
  ])) as AuditRow[];
}

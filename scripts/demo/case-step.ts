/**
 * The demo's case step: a customer whose first mail still waits writes again about something
 * else. The second mail joins the first one's case, the first draft is written again to answer
 * both, one reply answers the two mails, and the case's response deadline posts its reminder.
 */
import path from 'node:path';
import type { Pool } from '../../src/platform/pool.mariadb';
import { WAITING } from './pipeline';
import { loadSampleMails, SAMPLE_DIR, sameMessageId, type SampleMail } from './sample-mails';
import { step, waitFor } from './step';

export const CASE_DIR = path.join(SAMPLE_DIR, 'case');
/** The sample whose sender writes again (scripts/demo-mails/case/). */
export const CASE_FIRST_FILE = '02-delivery-delay.eml';

interface CaseMailRow {
  id: string;
  status: string;
  caseId: string | null;
  versions: number;
}

async function rowOf(pool: Pool, messageId: string): Promise<CaseMailRow | undefined> {
  const rows = (await pool.query(
    `SELECT e.id, e.status, e.case_id, e.message_id, (SELECT COUNT(*) FROM drafts d WHERE d.email_id = e.id) AS versions FROM emails e`,
  )) as Array<{ id: string; status: string; case_id: string | null; message_id: string | null; versions: bigint }>;
  const r = rows.find((x) => sameMessageId(x.message_id, messageId));
  return r && { id: r.id, status: r.status, caseId: r.case_id, versions: Number(r.versions) };
}

export interface CaseStepIo {
  pool: Pool;
  deliver(mail: SampleMail): Promise<void>;
  cli(args: string[]): Promise<string>;
  say(line?: string): void;
  logs: string[];
  abortIf(): string | undefined;
}

/** Delivers the follow-up of `first`, waits for the case to hold both mails with fresh drafts, answers both in one reply. */
export async function caseStep(io: CaseStepIo, first: SampleMail): Promise<{ caseId: string; leadId: string; coveredId: string }> {
  const [second] = await step('reading the follow-up mail', [], () => loadSampleMails(CASE_DIR));
  if (!second) throw new Error(`no .eml in ${CASE_DIR}`);
  const before = await rowOf(io.pool, first.messageId);
  if (!before?.caseId) throw new Error(`the first mail of ${first.from} has no case`);
  await step(`delivering ${second.file}`, io.logs, () => io.deliver(second));
  io.say(`  ${second.from} writes again, about something else: "${second.subject}"`);
  const opts = { timeoutMs: 120_000, abortIf: io.abortIf };
  const covered = await step('waiting for the second mail to join the case', io.logs, () =>
    waitFor(
      'the second mail waiting in the same case',
      async () => {
        const r = await rowOf(io.pool, second.messageId);
        return r && r.caseId === before.caseId && WAITING.has(r.status) ? r : undefined;
      },
      opts,
    ),
  );
  const lead = await step('waiting for the first draft to be written again with the second mail', io.logs, () =>
    waitFor(
      'a new draft of the first mail',
      async () => {
        const r = await rowOf(io.pool, first.messageId);
        return r && r.versions > before.versions && WAITING.has(r.status) ? r : undefined;
      },
      opts,
    ),
  );
  io.say(`  both mails are in case ${before.caseId}; the first mail's draft is now version ${lead.versions} (it sees both mails)`);
  // The demo mailbox's response targets are minutes long: the reminder comes before anyone answers.
  const reminder = await step('waiting for the case reminder (the demo mailbox has response targets of minutes)', io.logs, () =>
    waitFor(
      'a case_reminder row',
      async () => {
        const rows = (await io.pool.query(
          `SELECT created_at, message FROM case_events WHERE case_id = ? AND event_type = 'case_reminder' LIMIT 1`,
          [before.caseId],
        )) as Array<{ created_at: Date; message: string }>;
        return rows[0];
      },
      opts,
    ),
  );
  io.say(`  deadline reminder ${new Date(reminder.created_at).toISOString()}: ${reminder.message}`);
  io.say(`  $ email-rag cases show ${before.caseId}`);
  io.say(indent(await io.cli(['cases', 'show', before.caseId])));
  io.say(`  $ email-rag cases answer ${before.caseId} --by demo`);
  io.say(indent(await io.cli(['cases', 'answer', before.caseId, '--by', 'demo'])));
  return { caseId: before.caseId, leadId: lead.id, coveredId: covered.id };
}

/** Waits until both mails of the case reply are sent, and shows the case's history. */
export async function caseSettled(io: CaseStepIo, c: { caseId: string; leadId: string; coveredId: string }): Promise<void> {
  const opts = { timeoutMs: 120_000, abortIf: io.abortIf };
  await step('waiting for both mails to be answered by the one reply', io.logs, () =>
    waitFor(
      'both mails sent',
      async () => {
        const rows = (await io.pool.query(`SELECT id, status, status_reason FROM emails WHERE id IN (?, ?)`, [
          c.leadId,
          c.coveredId,
        ])) as Array<{
          id: string;
          status: string;
          status_reason: string | null;
        }>;
        return rows.length === 2 && rows.every((r) => r.status === 'sent') ? rows : undefined;
      },
      opts,
    ),
  );
  io.say(`  $ email-rag cases show ${c.caseId}`);
  io.say(indent(await io.cli(['cases', 'show', c.caseId])));
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

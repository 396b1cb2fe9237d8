/**
 * The demo's stand-down step: a colleague answers one waiting mail from their own mail client. The
 * reply lands in the mailbox's Sent folder; the IMAP IDLE watcher on Sent wakes the poll, which
 * reads it as an answer beside the assistant. The email ends `answered_elsewhere`, its draft is
 * withdrawn, and approving it is refused with who answered and when.
 */
import type { Pool } from '../../src/platform/pool.mariadb';
import { emailRagExit } from './cli';
import { step, waitFor } from './step';

export interface StandDownIo {
  pool: Pool;
  /** Files a message in a folder of the demo mailbox, as a mail client's "save to Sent" does. */
  file(raw: string, folder: string): Promise<void>;
  env: NodeJS.ProcessEnv;
  say(line?: string): void;
  logs: string[];
  abortIf(): string | undefined;
}

interface WaitingRow {
  id: string;
  messageId: string;
  from: string;
  subject: string;
  draftId: string;
}

/** The first mail that still waits for approval with a draft. */
async function aWaitingMail(pool: Pool): Promise<WaitingRow | undefined> {
  const rows = (await pool.query(
    `SELECT e.id, e.message_id, e.from_address, e.subject, d.id AS draft_id FROM emails e JOIN drafts d ON d.email_id = e.id
      WHERE e.status = 'awaiting_approval' AND d.status = 'awaiting_approval' AND e.message_id IS NOT NULL ORDER BY e.created_at LIMIT 1`,
  )) as Array<{ id: string; message_id: string; from_address: string; subject: string; draft_id: string }>;
  const r = rows[0];
  return r && { id: r.id, messageId: r.message_id, from: r.from_address, subject: r.subject, draftId: r.draft_id };
}

function colleaguesReply(mail: WaitingRow, mailbox: string): string {
  return [
    `From: Support <${mailbox}>`,
    `To: ${mail.from}`,
    `Subject: Re: ${mail.subject}`,
    `Message-ID: <colleague-${Date.now()}@${mailbox.split('@')[1] ?? 'localhost'}>`,
    `In-Reply-To: ${mail.messageId}`,
    `References: ${mail.messageId}`,
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Hallo,',
    '',
    'ich habe mich gerade selbst darum gekümmert.',
    '',
    'Viele Grüße',
    'Anna (aus dem eigenen Mailprogramm)',
    '',
  ].join('\r\n');
}

/** Files a colleague's reply in Sent and waits for the assistant to stand down; returns the lines to show. */
export async function standDownStep(io: StandDownIo, mailbox: string): Promise<string[]> {
  const mail = await aWaitingMail(io.pool);
  if (!mail) return ['no mail waits for approval: nothing for a colleague to answer'];
  const filedAt = Date.now();
  await step(`a colleague answers "${mail.subject}" from their own client (filed in Sent)`, io.logs, () =>
    io.file(colleaguesReply(mail, mailbox), 'Sent'),
  );
  const ended = await step('waiting for the assistant to stand down (no poll triggered)', io.logs, () =>
    waitFor(
      `${mail.id} answered elsewhere`,
      async () => {
        const rows = (await io.pool.query('SELECT status, status_reason FROM emails WHERE id = ?', [mail.id])) as Array<{
          status: string;
          status_reason: string | null;
        }>;
        return rows[0]?.status === 'answered_elsewhere' ? rows[0] : undefined;
      },
      { timeoutMs: 90_000, everyMs: 200, abortIf: io.abortIf },
    ),
  );
  const seconds = ((Date.now() - filedAt) / 1000).toFixed(1);
  const drafts = (await io.pool.query('SELECT status FROM drafts WHERE id = ?', [mail.draftId])) as Array<{ status: string }>;
  const approve = await emailRagExit(['approve', mail.id, '--by', 'demo-reviewer'], io.env);
  return [
    `${mail.id}`,
    `  status      ${ended.status} after ${seconds} s: ${ended.status_reason ?? ''}`,
    `  draft       ${mail.draftId} is ${drafts[0]?.status ?? 'gone'}`,
    `  approve     exit ${approve.code}: ${approve.stdout.split('\n')[0] ?? ''}`,
  ];
}

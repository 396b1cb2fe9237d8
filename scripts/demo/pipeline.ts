import { DECISIONS } from '../../src/email/email.contract';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import type { Pool } from '../../src/platform/pool.mariadb';
import type { SmtpSink } from '../../test/support/services/smtp-sink';
import { runCommand, shellQuote } from './cli';
import { PRINTED_CODEC_AUTH, codecFlags, type DemoCodec } from './codec';
import { emailRows, emailStatus, type EmailRow } from './queries';
import { indent } from './report';
import { sameMessageId, type SampleMail } from './sample-mails';
import { step, waitFor } from './step';

export const WAITING = new Set(['awaiting_approval', 'manual_review']);

interface Watch {
  say: (line: string) => void;
  /** A reason to give up early, e.g. that the worker died. */
  abortIf: () => string | undefined;
}

/** Waits until every sample has a draft waiting for a person; prints progress as it changes. */
export async function waitForDrafts(pool: Pool, samples: readonly SampleMail[], watch: Watch): Promise<EmailRow[]> {
  const started = Date.now();
  let shown = -1;
  let failed: string | undefined;
  return waitFor(
    `drafts for all ${samples.length} emails`,
    async () => {
      const all = await emailRows(pool);
      const mine = samples.map((s) => all.find((r) => sameMessageId(r.messageId, s.messageId)));
      const bad = mine.find((r) => r?.status === 'failed');
      if (bad) failed = `${bad.id} ended as failed`;
      const ready = mine.filter((r) => r !== undefined && WAITING.has(r.status)).length;
      if (ready !== shown) {
        watch.say(`  ${ready}/${samples.length} drafted and waiting for approval (${Math.round((Date.now() - started) / 1000)} s)`);
        shown = ready;
      }
      return ready === samples.length ? (mine as EmailRow[]) : undefined;
    },
    { timeoutMs: 120_000, everyMs: 1_000, abortIf: () => failed ?? watch.abortIf() },
  );
}

async function currentDraft(pool: Pool, emailId: string): Promise<string> {
  const rows = (await pool.query(`SELECT id FROM drafts WHERE email_id = ? ORDER BY version DESC LIMIT 1`, [emailId])) as Array<{
    id: string;
  }>;
  return rows[0]?.id ?? `${emailId}:draft:1`;
}

/**
 * Approves with the real temporal CLI, as an operator without this project's CLI would, and waits
 * for `sent`. Payloads are encrypted, so the CLI encodes the input and decodes the result through
 * the codec server.
 */
export async function approveWithTemporalCli(
  target: EmailRow,
  temporal: { cli: string; address: string; codec: Pick<DemoCodec, 'url' | 'token'> },
  pool: Pool,
  workerLog: string,
  watch: Watch,
): Promise<void> {
  // The decision names the draft the operator read: a newer draft is never approved in its place.
  const draftId = await currentDraft(pool, target.id);
  // A draft in manual_review has no usable text: approving it needs the reply a person wrote.
  const input =
    target.status === 'manual_review'
      ? { draftId, by: 'demo-operator', body: 'Guten Tag,\n\nvielen Dank für Ihre Nachricht, wir kümmern uns darum.\n\nIhr Support-Team' }
      : { draftId, by: 'demo-operator' };
  const args = ['workflow', 'update', 'execute', '--address', temporal.address, '--namespace', 'default'];
  args.push('--workflow-id', target.id, '--name', DECISIONS.approve, '--input', JSON.stringify(input));
  watch.say(`  $ ${shellQuote([temporal.cli, ...args])} ${codecFlags(temporal.codec, PRINTED_CODEC_AUTH).join(' ')}`);
  const withCodec = [...args, ...codecFlags(temporal.codec, `Bearer ${temporal.codec.token}`)];
  const out = await step('approving with the temporal CLI', [], () => runCommand(temporal.cli, withCodec, process.env, 30_000));
  if (out) watch.say(indent(out, '    '));
  const signalled = Date.now();
  await step(`waiting for ${target.id} to be sent`, [workerLog], () =>
    waitFor('status sent', async () => (await emailStatus(pool, target.id)) === 'sent', { timeoutMs: 60_000, abortIf: watch.abortIf }),
  );
  watch.say(`  ${target.id} is sent (${((Date.now() - signalled) / 1000).toFixed(1)} s after the approval)`);
}

export interface ReceivedReply {
  /** MAIL FROM as the SMTP client sent it, and the From header. */
  mailFrom: string;
  from: string;
  rcptTo: string[];
  subject: string;
  inReplyTo?: string;
  messageId?: string;
  text: string;
  /** The HTML part, when the reply has one. */
  html?: string;
  /** The top-level Content-Type (e.g. multipart/alternative) and the parts beneath it. */
  contentType: string;
  parts: string[];
  /** The .eml the sink wrote, when found. */
  file?: string;
}

/** The `nth` message (1-based) the SMTP sink accepts, parsed, with the file it was stored in. */
export async function receivedReply(smtp: SmtpSink, dir: string, nth = 1): Promise<ReceivedReply> {
  const mail = (await smtp.waitForMessages(nth, 30_000))[nth - 1];
  if (!mail) throw new Error('the SMTP sink returned no message');
  const parsed = await simpleParser(mail.raw);
  // The sink names files <epoch ms>-<n>.eml and writes them before it reports the message.
  const name = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .pop();
  return {
    mailFrom: mail.envelope.mailFrom,
    from: parsed.from?.text ?? '',
    rcptTo: mail.envelope.rcptTo,
    subject: parsed.subject ?? '',
    inReplyTo: parsed.inReplyTo,
    messageId: parsed.messageId,
    text: parsed.text ?? '',
    html: typeof parsed.html === 'string' ? parsed.html : undefined,
    ...mimeStructure(mail.raw),
    file: name && path.join(dir, name),
  };
}

/** The Content-Type of the message and of each part beneath it, as the raw bytes declare them. */
function mimeStructure(raw: string | Buffer): { contentType: string; parts: string[] } {
  const types = [...String(raw).matchAll(/^Content-Type:\s*([^;\r\n]+)((?:;[^\r\n]*)?(?:\r?\n[ \t][^\r\n]*)*)/gim)].map((m) => {
    const flowed = /format=flowed/i.test(m[2] ?? '') ? '; format=flowed' : '';
    return `${m[1]!.trim().toLowerCase()}${flowed}`;
  });
  return { contentType: types[0] ?? 'text/plain', parts: types.slice(1) };
}

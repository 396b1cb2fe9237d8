/**
 * One correspondent's data in every store, as the pipeline leaves it: emails, raw messages,
 * drafts, sends, audit and queue rows, a case, passages in the full-text index, points in Qdrant,
 * nodes in ArangoDB, and one Temporal execution per email (and per case) whose input names them.
 */
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Pool } from '../../src/platform/pool.mariadb';
import type { VectorIndex } from '../../src/retrieval/vector-index.port';
import type { Embedder } from '../../src/retrieval/embedder.port';

export interface Person {
  name: string;
  address: string;
  /** A phrase only their mail contains. */
  phrase: string;
  /** Prefix of their email ids. */
  key: string;
}

/** Vectors from a hash of the text: enough for stores that only keep them. */
export const HASH_EMBEDDER: Embedder = {
  model: 'hash-8',
  embed: (texts) =>
    Promise.resolve(texts.map((t) => [...createHash('sha256').update(t).digest().subarray(0, 8)].map((b) => b / 255 + 0.01))),
};

export const NO_WORKER_QUEUE = 'privacy-test-no-worker';

function eml(p: Person, i: number): string {
  return [
    `From: ${p.name} <${p.address}>`,
    'To: Support <support@example.test>',
    `Subject: Refund ${i} for ${p.name}`,
    `Message-ID: <${p.key}-${i}@mail.example>`,
    '',
    `Hello, ${p.phrase}. Please refund order ${i}.`,
    '',
    'Kind regards,',
    p.name,
    '',
  ].join('\r\n');
}

/** Seeds `count` emails of `p` (one case, one draft and sent reply per email) and returns their ids. */
export async function seedPerson(
  pool: Pool,
  index: VectorIndex,
  temporal: Client | null,
  p: Person,
  count: number,
  opts: { sendStatus?: string } = {},
): Promise<{ emailIds: string[]; caseId: string }> {
  const caseId = `case-${p.key}`;
  const emailIds = Array.from({ length: count }, (_, i) => `email-${p.key}-${i}`);
  const batch = 200;
  for (let s = 0; s < count; s += batch) {
    const ids = emailIds.slice(s, s + batch);
    const rows = ids.map((id, j) => {
      const i = s + j;
      return [
        id,
        p.address,
        p.name,
        `Refund ${i} for ${p.name}`,
        `Hello, ${p.phrase}. Please refund order ${i}.\n\nKind regards,\n${p.name}`,
        `thread-${p.key}-${i % 10}`,
        caseId,
      ];
    });
    await pool.query(
      `INSERT INTO emails (id, source, account, mailbox, status, from_address, from_name, subject, text_body, thread_id, case_id, to_addresses)
       VALUES ${rows.map(() => "(?, 'file', 'support@example.test', 'INBOX', 'sent', ?, ?, ?, ?, ?, ?, 'support@example.test')").join(', ')}`,
      rows.flat(),
    );
    const raws = ids.map((id, j) => {
      const raw = Buffer.from(eml(p, s + j));
      return [id, raw, raw.length, createHash('sha256').update(raw).digest('hex')];
    });
    await pool.query(
      `INSERT INTO raw_messages (email_id, raw, size, sha256) VALUES ${raws.map(() => '(?, ?, ?, ?)').join(', ')}`,
      raws.flat(),
    );
    // An attachment per email: its name, its bytes and the text read from it name the person.
    for (const id of ids) {
      const file = Buffer.from(`Invoice for ${p.name}, ${p.address}: ${p.phrase}`);
      await pool.query(
        `INSERT INTO email_attachments (email_id, part_index, filename, declared_type, detected_type, size, sha256, chunks, data, text_state)
         VALUES (?, 0, ?, 'text/plain', 'text/plain', ?, ?, 2, ?, 'extracted')`,
        [id, `invoice-${p.key}.txt`, file.length * 2, createHash('sha256').update(file).digest('hex'), file],
      );
      await pool.query('INSERT INTO email_attachment_parts (email_id, part_index, seq, data) VALUES (?, 0, 1, ?)', [id, file]);
      await pool.query('INSERT INTO email_attachment_texts (email_id, part_index, page, text) VALUES (?, 0, 1, ?)', [id, file.toString()]);
    }
    const drafts = ids.map((id) => [
      `${id}:draft:1`,
      id,
      `Re: refund for ${p.name}`,
      `Dear ${p.name},\nabout "${p.phrase}": refunded.`,
      p.address,
      p.name,
    ]);
    await pool.query(
      `INSERT INTO drafts (id, email_id, version, status, subject, body, language, drafter, model, prompt_version, context_ids, to_address, to_name)
       VALUES ${drafts.map(() => "(?, ?, 1, 'sent', ?, ?, 'en', 'offline', 'm', 'p', '[]', ?, ?)").join(', ')}`,
      drafts.flat(),
    );
    const sends = ids.map((id) => [
      `${id}:draft:1`,
      id,
      `<${id}@support.example.test>`,
      opts.sendStatus ?? 'sent',
      JSON.stringify({ to: [p.address] }),
    ]);
    await pool.query(
      `INSERT INTO send_attempts (draft_id, email_id, message_id, status, envelope) VALUES ${sends.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
      sends.flat(),
    );
    const audits = ids.map((id) => [
      id,
      id,
      `draft for ${p.name} <${p.address}>: ${p.phrase}`,
      JSON.stringify({ to: p.address, words: 12 }),
    ]);
    await pool.query(
      `INSERT INTO audit_log (email_id, correlation_id, event_type, message, details) VALUES ${audits.map(() => "(?, ?, 'draft_created', ?, ?)").join(', ')}`,
      audits.flat(),
    );
    const jobs = ids.map((id) => [id, id, `SMTP 550 for ${p.address}`]);
    await pool.query(
      `INSERT INTO queue_jobs (workflow_id, email_id, step, status, last_error) VALUES ${jobs.map(() => "(?, ?, 'send', 'done', ?)").join(', ')}`,
      jobs.flat(),
    );
  }
  await pool.query(
    `INSERT INTO cases (id, account, correspondent, correspondent_name, subject, summary, email_count) VALUES (?, 'support@example.test', ?, ?, ?, ?, ?)`,
    [caseId, p.address, p.name, `Refunds for ${p.name}`, `${p.name} asked twice: ${p.phrase}`, count],
  );
  await pool.query(`INSERT INTO case_events (case_id, event_type, message, details) VALUES (?, 'case_opened', ?, ?)`, [
    caseId,
    `opened for ${p.address}`,
    JSON.stringify({ name: p.name }),
  ]);
  await pool.query('INSERT INTO reply_slots (email_id, address) VALUES (?, ?)', [emailIds[0], p.address]);
  for (const [i, id] of emailIds.entries()) {
    const common = { threadId: `thread-${p.key}-${i % 10}`, account: 'support@example.test', mailbox: 'INBOX', date: new Date() };
    await index.index({
      ...common,
      emailId: id,
      direction: 'in',
      fromAddress: p.address,
      fromName: p.name,
      subject: `Refund ${i}`,
      text: `Hello, ${p.phrase}. Order ${i}.`,
    });
    await index.index({
      ...common,
      emailId: `${id}:draft:1:sent`,
      direction: 'out',
      fromAddress: 'support@example.test',
      toAddresses: [p.address],
      subject: `Re: Refund ${i}`,
      text: `Dear ${p.name}, about ${p.phrase}: refunded.`,
    });
  }
  if (temporal) {
    const queue = [...emailIds, caseId];
    const start = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        await temporal.workflow.start('EmailWorkflow', {
          workflowId: id,
          taskQueue: NO_WORKER_QUEUE,
          args: [{ emailId: id, from: `${p.name} <${p.address}>`, note: p.phrase }],
        });
      }
    };
    await Promise.all(Array.from({ length: 16 }, start));
  }
  return { emailIds, caseId };
}

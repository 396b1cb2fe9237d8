/** Reads everything held about one correspondent, for an export (GDPR Art. 15 requests). */
import type { SubjectIds } from './privacy-subject';
import { query, type Pool } from '../platform/pool.mariadb';

type Rows = Array<Record<string, unknown>>;

const BATCH = 200;
const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** Vectors are numbers derived from the text: the export says they exist, not their bytes. */
function plain(rows: Rows): Rows {
  return rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [k, Buffer.isBuffer(v) ? `(${v.length} bytes)` : typeof v === 'bigint' ? Number(v) : v]),
    ),
  );
}

export interface SubjectExport {
  emails: Rows;
  drafts: Rows;
  draftOutcomes: Rows;
  sendAttempts: Rows;
  passages: Rows;
  /** Attachments without their bytes (the zip holds each file); what was read from them, per page. */
  attachments: Rows;
  attachmentTexts: Rows;
  cases: Rows;
  caseEvents: Rows;
  caseReplies: Rows;
  audit: Rows;
  accessLog: Rows;
  /** Replays of the team's history (src/replay/): their mail, its pairs and what was drafted for it. */
  replayMessages: Rows;
  replayPairs: Rows;
  replayResults: Rows;
}

export async function readSubjectExport(pool: Pool, address: string, ids: SubjectIds): Promise<SubjectExport> {
  const byIds = async (what: string, sql: (m: string) => string, list: string[]): Promise<Rows> => {
    const out: Rows = [];
    for (let i = 0; i < list.length; i += BATCH) {
      const b = list.slice(i, i + BATCH);
      out.push(...(await query<Rows>(pool, what, sql(marks(b.length)), b)));
    }
    return plain(out);
  };
  const e = ids.emailIds;
  const like = `%${address.replace(/[\\%_]/g, '\\$&')}%`;
  const auditRows = await byIds('exporting audit rows', (m) => `SELECT * FROM audit_log WHERE email_id IN (${m}) ORDER BY id`, e);
  const mentions = plain(
    await query<Rows>(
      pool,
      'exporting audit rows naming the address',
      'SELECT * FROM audit_log WHERE message LIKE ? OR details LIKE ? ORDER BY id',
      [like, like],
    ),
  );
  const seen = new Set(auditRows.map((r) => r.id));
  return {
    emails: await byIds('exporting emails', (m) => `SELECT * FROM emails WHERE id IN (${m}) ORDER BY created_at`, e),
    drafts: await byIds('exporting drafts', (m) => `SELECT * FROM drafts WHERE email_id IN (${m}) ORDER BY email_id, version`, e),
    draftOutcomes: await byIds('exporting decisions', (m) => `SELECT * FROM draft_outcomes WHERE email_id IN (${m})`, e),
    sendAttempts: await byIds('exporting send attempts', (m) => `SELECT * FROM send_attempts WHERE email_id IN (${m})`, e),
    passages: await byIds('exporting passages', (m) => `SELECT * FROM passages WHERE email_id IN (${m}) ORDER BY email_id, idx`, [
      ...e,
      ...ids.sentIds,
    ]),
    attachments: await byIds(
      'exporting attachments',
      (m) =>
        `SELECT email_id, part_index, filename, declared_type, detected_type, size, sha256, disposition, content_id, text_state, text_note, created_at
           FROM email_attachments WHERE email_id IN (${m}) ORDER BY email_id, part_index`,
      e,
    ),
    attachmentTexts: await byIds(
      'exporting attachment text',
      (m) => `SELECT * FROM email_attachment_texts WHERE email_id IN (${m}) ORDER BY email_id, part_index, page`,
      e,
    ),
    cases: await byIds('exporting cases', (m) => `SELECT * FROM cases WHERE id IN (${m})`, ids.caseIds),
    caseEvents: await byIds('exporting case events', (m) => `SELECT * FROM case_events WHERE case_id IN (${m}) ORDER BY id`, ids.caseIds),
    caseReplies: await byIds('exporting case replies', (m) => `SELECT * FROM case_replies WHERE case_id IN (${m})`, ids.caseIds),
    audit: [...auditRows, ...mentions.filter((r) => !seen.has(r.id))],
    accessLog: await byIds('exporting the access log', (m) => `SELECT * FROM access_log WHERE email_id IN (${m}) ORDER BY id`, e),
    replayMessages: plain(
      await query<Rows>(
        pool,
        'exporting replayed mail',
        'SELECT * FROM replay_messages WHERE correspondent = ? OR from_address = ? ORDER BY run_id, sent_at',
        [address, address],
      ),
    ),
    replayPairs: plain(
      await query<Rows>(pool, 'exporting replay pairs', 'SELECT * FROM replay_pairs WHERE correspondent = ? ORDER BY run_id, customer_at', [
        address,
      ]),
    ),
    replayResults: plain(
      await query<Rows>(pool, 'exporting replay results', 'SELECT * FROM replay_results WHERE correspondent = ? ORDER BY run_id, pair_id', [
        address,
      ]),
    ),
  };
}

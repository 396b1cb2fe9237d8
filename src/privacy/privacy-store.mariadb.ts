/**
 * The MariaDB side of export and erasure: finding one correspondent's rows, reading them for an
 * export, and removing or anonymising them in batches (each batch its own statement, so a
 * re-run continues and a large erasure never holds long locks).
 */
import { SEND_STATUS } from '../email';
import type { SubjectIds } from './privacy-subject';
import type { ErasureProgress, PrivacyStore } from './privacy-store.port';
import { query, sqlList, type Pool } from '../platform/pool.mariadb';

const BATCH = 200;
const ERASED = '[erased]';
/** Progress rows and the salt are the erasure's own bookkeeping; they hold hashes only. */
const OWN_TABLES = new Set(['privacy_erasures', 'privacy_salt', 'schema_migrations']);
/** Tables with customers' content: a name is scrubbed only here (a colleague may share it). */
const CONTENT_TABLES = new Set([
  'emails',
  'passages',
  'drafts',
  'draft_claims',
  'audit_log',
  'case_events',
  'cases',
  'queue_jobs',
  'send_attempts',
  'email_attachments',
  'email_attachment_texts',
  'replay_messages',
  'outside_replies',
  'replay_results',
]);

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

async function inBatches(ids: string[], fn: (batch: string[]) => Promise<number>): Promise<number> {
  let n = 0;
  for (let i = 0; i < ids.length; i += BATCH) n += await fn(ids.slice(i, i + BATCH));
  return n;
}

function affected(r: unknown): number {
  return Number((r as { affectedRows?: number }).affectedRows ?? 0);
}

export function createMariaDbPrivacyStore(pool: Pool): PrivacyStore & { sweep(terms: string[], only?: Set<string>): Promise<number> } {
  const run = async (what: string, sql: string, params: unknown[] = []) => affected(await query(pool, what, sql, params));

  return {
    async salt(): Promise<string> {
      const rows = await query<Array<{ salt: string }>>(pool, 'reading the privacy salt', 'SELECT salt FROM privacy_salt WHERE id = 1');
      if (!rows[0]) throw new Error('privacy_salt is empty: run email-rag migrate');
      return rows[0].salt;
    },

    /** Everything stored under the address: their mail, mail we answered to them, their cases. */
    async find(address: string): Promise<SubjectIds> {
      const mails = await query<Array<{ id: string; from_name: string | null; reply_to_name: string | null; mine: number }>>(
        pool,
        'finding the emails of a correspondent',
        `SELECT id, from_name, reply_to_name, (from_address = ? OR reply_to_address = ?) AS mine FROM emails
          WHERE from_address = ? OR reply_to_address = ?
         UNION SELECT e.id, NULL, NULL, 0 FROM drafts d JOIN emails e ON e.id = d.email_id WHERE d.to_address = ?`,
        [address, address, address, address, address],
      );
      const sent = await query<Array<{ email_id: string }>>(
        pool,
        'finding our sent replies to a correspondent',
        `SELECT DISTINCT email_id FROM passages WHERE direction = 'out' AND correspondent = ?`,
        [address],
      );
      const cases = await query<Array<{ id: string; correspondent_name: string }>>(
        pool,
        'finding the cases of a correspondent',
        'SELECT id, correspondent_name FROM cases WHERE correspondent = ?',
        [address],
      );
      // Replays keep their mail apart from emails (src/replay/): their names count too.
      const replayed = await query<Array<{ from_name: string }>>(
        pool,
        'finding the replayed mail of a correspondent',
        'SELECT DISTINCT from_name FROM replay_messages WHERE from_address = ?',
        [address],
      );
      const names = [
        ...mails.flatMap((m) => (m.mine ? [m.from_name, m.reply_to_name] : [])),
        ...cases.map((c) => c.correspondent_name),
        ...replayed.map((r) => r.from_name),
      ];
      return {
        emailIds: [...new Set(mails.map((m) => m.id))].sort(),
        sentIds: sent.map((s) => s.email_id).sort(),
        caseIds: cases.map((c) => c.id).sort(),
        names: [...new Set(names.filter((n): n is string => !!n && n.trim().length > 1).map((n) => n.trim()))].sort(),
      };
    },

    /** Sends of theirs that may be on the wire or in doubt: an erasure waits for a person. */
    async unsettledSends(emailIds: string[]): Promise<Array<{ emailId: string; status: string }>> {
      const out: Array<{ emailId: string; status: string }> = [];
      await inBatches(emailIds, async (ids) => {
        const rows = await query<Array<{ email_id: string; status: string }>>(
          pool,
          'checking sends in flight',
          `SELECT email_id, status FROM send_attempts WHERE email_id IN (${marks(ids.length)})
             AND status IN (${sqlList([SEND_STATUS.sending, SEND_STATUS.inDoubt])})`,
          ids,
        );
        out.push(...rows.map((r) => ({ emailId: r.email_id, status: r.status })));
        return rows.length;
      });
      return out;
    },

    async progress(hash: string): Promise<ErasureProgress | null> {
      const rows = await query<Array<{ email_ids: string; done: string; finished_at: Date | null; forced: number }>>(
        pool,
        'reading erasure progress',
        'SELECT email_ids, done, finished_at, forced FROM privacy_erasures WHERE address_hash = ?',
        [hash],
      );
      const r = rows[0];
      return r
        ? {
            ids: JSON.parse(r.email_ids) as SubjectIds,
            done: JSON.parse(r.done) as Record<string, number>,
            finishedAt: r.finished_at,
            forced: r.forced === 1,
          }
        : null;
    },

    /** Records what is to be erased before anything is: a re-run finds the ids even once the rows are gone. */
    async begin(hash: string, by: string, forced: boolean, ids: SubjectIds): Promise<void> {
      await query(
        pool,
        'recording erasure progress',
        `INSERT INTO privacy_erasures (address_hash, requested_by, forced, email_ids, done) VALUES (?, ?, ?, ?, '{}')
         ON DUPLICATE KEY UPDATE requested_by = VALUES(requested_by), forced = VALUES(forced), email_ids = VALUES(email_ids), finished_at = NULL`,
        // Ids only: the names would be personal data kept by the very row that records their erasure.
        [hash, by, forced ? 1 : 0, JSON.stringify({ ...ids, names: [] })],
      );
    },

    async step(hash: string, step: string, count: number): Promise<void> {
      await query(pool, 'recording erasure progress', `UPDATE privacy_erasures SET done = JSON_SET(done, ?, ?) WHERE address_hash = ?`, [
        `$.${step}`,
        count,
        hash,
      ]);
    },

    async finish(hash: string): Promise<void> {
      await query(
        pool,
        'recording erasure progress',
        'UPDATE privacy_erasures SET finished_at = CURRENT_TIMESTAMP(3) WHERE address_hash = ?',
        [hash],
      );
    },

    /** Their rows removed or anonymised; every count per table. Idempotent. */
    async erase(address: string, hash: string, ids: SubjectIds): Promise<Record<string, number>> {
      const counts: Record<string, number> = {};
      const each = async (name: string, list: string[], sql: (m: string) => string, extra: unknown[] = []) => {
        counts[name] = (counts[name] ?? 0) + (await inBatches(list, (b) => run(`erasing ${name}`, sql(marks(b.length)), [...extra, ...b])));
      };
      const e = ids.emailIds;
      // Replays (src/replay/) first: their mail, its pairs and drafts are found by the address, which the sweep below rewrites.
      counts.replay_results = await run('erasing replay_results', 'DELETE FROM replay_results WHERE correspondent = ?', [address]);
      counts.replay_pairs = await run('erasing replay_pairs', 'DELETE FROM replay_pairs WHERE correspondent = ?', [address]);
      counts.replay_messages = await run(
        'erasing replay_messages',
        'DELETE FROM replay_messages WHERE correspondent = ? OR from_address = ?',
        [address, address],
      );
      // Mentions first, while the rows still name them: a resumed run knows the ids, not the names.
      counts.mentions = (await this.sweep(ids.names, CONTENT_TABLES)) + (await this.sweep([address]));
      await each('raw_message_parts', e, (m) => `DELETE FROM raw_message_parts WHERE email_id IN (${m})`);
      await each('raw_messages', e, (m) => `DELETE FROM raw_messages WHERE email_id IN (${m})`);
      // Attachments: their bytes, what was read from them, and their names.
      await each('email_attachment_texts', e, (m) => `DELETE FROM email_attachment_texts WHERE email_id IN (${m})`);
      await each('email_attachment_parts', e, (m) => `DELETE FROM email_attachment_parts WHERE email_id IN (${m})`);
      await each('email_attachments', e, (m) => `DELETE FROM email_attachments WHERE email_id IN (${m})`);
      // Replies people sent them beside the assistant (docs/answered-elsewhere.md): the reply and its ties.
      await each(
        'outside_replies',
        e,
        (m) =>
          `DELETE r FROM outside_replies r JOIN outside_answers a ON a.mailbox_id = r.mailbox_id AND a.message_key = r.message_key WHERE a.email_id IN (${m})`,
      );
      await each('outside_answers', e, (m) => `DELETE FROM outside_answers WHERE email_id IN (${m})`);
      await each('shadow_evidence', e, (m) => `DELETE FROM shadow_evidence WHERE email_id IN (${m})`);
      counts.outside_replies =
        (counts.outside_replies ?? 0) +
        (await run('erasing outside_replies', 'DELETE FROM outside_replies WHERE JSON_CONTAINS(to_addresses, JSON_QUOTE(?))', [address]));
      await each('drafts', e, (m) => `DELETE FROM drafts WHERE email_id IN (${m})`);
      await each('draft_claims', e, (m) => `DELETE FROM draft_claims WHERE email_id IN (${m})`);
      await each(
        'send_attempts',
        e,
        (m) =>
          `UPDATE send_attempts SET envelope = NULL, smtp_response = NULL, last_error = NULL, resolution_note = NULL WHERE email_id IN (${m})`,
      );
      await each('queue_jobs', e, (m) => `UPDATE queue_jobs SET last_error = NULL WHERE email_id IN (${m}) AND last_error IS NOT NULL`);
      // The audit trail keeps its facts (event, time, ids, actor, error class), not the content.
      await each('audit_log', e, (m) => `UPDATE audit_log SET message = ?, details = NULL WHERE message <> ? AND email_id IN (${m})`, [
        ERASED,
        ERASED,
      ]);
      await each(
        'case_events',
        ids.caseIds,
        (m) => `UPDATE case_events SET message = ?, details = NULL WHERE message <> ? AND case_id IN (${m})`,
        [ERASED, ERASED],
      );
      await each(
        'cases',
        ids.caseIds,
        (m) => `UPDATE cases SET correspondent = ?, correspondent_name = '', subject = '', summary = NULL WHERE id IN (${m})`,
        [`erased:${hash.slice(0, 16)}`],
      );
      counts.reply_slots = await run('erasing reply_slots', 'DELETE FROM reply_slots WHERE address = ?', [address]);
      await each('emails', e, (m) => `DELETE FROM emails WHERE id IN (${m})`);
      return counts;
    },

    /**
     * Every text column of every table: the address (and their names) wherever else it is
     * mentioned — another customer's Cc line, an error message, a row of a table added later.
     */
    async sweep(terms: string[], only?: Set<string>): Promise<number> {
      const columns = await query<Array<{ t: string; c: string }>>(
        pool,
        'listing text columns',
        `SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.COLUMNS
          WHERE TABLE_SCHEMA = DATABASE() AND DATA_TYPE IN ('char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext')`,
      );
      let n = 0;
      for (const term of terms.filter((t) => t.length >= 3)) {
        const pattern = `(?i)${term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
        for (const { t, c } of columns) {
          if (OWN_TABLES.has(t) || (only && !only.has(t))) continue;
          n += await run(
            `erasing mentions in ${t}.${c}`,
            `UPDATE \`${t}\` SET \`${c}\` = REGEXP_REPLACE(\`${c}\`, ?, ?) WHERE \`${c}\` LIKE ?`,
            [pattern, ERASED, `%${term.replace(/[\\%_]/g, '\\$&')}%`],
          );
        }
      }
      return n;
    },
  };
}

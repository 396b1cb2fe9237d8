import { organisationDomain } from '../../lib/organisation';
import { splitPassages } from '../../lib/passages';
import type { DraftContextItem } from '../../ports/drafter';
import type { IndexableEmail, VectorIndex } from '../../ports/vector-index';
import { query, type Pool } from './pool';

/** The embedded retrieval default: MariaDB full-text over passages, scoped to one mailbox. */
export function createFullTextIndex(pool: Pool): VectorIndex {
  return {
    name: 'mariadb-fulltext',
    async index(email: IndexableEmail): Promise<void> {
      const passages = splitPassages(`${email.subject}\n\n${email.text}`);
      for (const [idx, text] of passages.entries()) {
        await query(
          pool,
          'indexing a passage',
          `INSERT INTO passages (email_id, idx, mailbox, thread_id, direction, from_address, text)
           VALUES (?, ?, ?, ?, ?, ?, ?)
           ON DUPLICATE KEY UPDATE text = VALUES(text), thread_id = VALUES(thread_id), mailbox = VALUES(mailbox)`,
          [email.emailId, idx, email.mailbox, email.threadId, email.direction, email.fromAddress, text],
        );
      }
      await query(pool, 'pruning old passages', 'DELETE FROM passages WHERE email_id = ? AND idx >= ?', [email.emailId, passages.length]);
    },

    async retrieve(email: IndexableEmail, limit: number): Promise<DraftContextItem[]> {
      const thread = await query<Array<{ email_id: string; text: string }>>(
        pool,
        'reading the thread history',
        `SELECT email_id, text FROM passages WHERE thread_id = ? AND mailbox = ? AND email_id <> ?
         ORDER BY created_at DESC, idx LIMIT ?`,
        [email.threadId, email.mailbox, email.emailId, limit],
      );
      const probe = `${email.subject} ${email.text.slice(0, 1000)}`;
      const similar = await query<Array<{ email_id: string; text: string }>>(
        pool,
        'searching similar passages',
        `SELECT email_id, text FROM passages
         WHERE mailbox = ? AND email_id <> ? AND thread_id <> ? AND MATCH(text) AGAINST (? IN NATURAL LANGUAGE MODE)
         ORDER BY MATCH(text) AGAINST (? IN NATURAL LANGUAGE MODE) DESC LIMIT ?`,
        [email.mailbox, email.emailId, email.threadId, probe, probe, limit],
      );
      // The sender's and their organisation's recent mail in other threads: the embedded stand-in
      // for the graph's same-sender and same-organisation relations.
      const domain = organisationDomain(email.fromAddress);
      const sender = await query<Array<{ email_id: string; text: string }>>(
        pool,
        'reading the sender history',
        `SELECT email_id, text FROM passages
         WHERE mailbox = ? AND email_id <> ? AND thread_id <> ? AND idx = 0 AND direction = 'in'
           AND (from_address = ? OR (? IS NOT NULL AND from_address LIKE ?))
         ORDER BY from_address = ? DESC, created_at DESC LIMIT 3`,
        [email.mailbox, email.emailId, email.threadId, email.fromAddress, domain, `%@${domain ?? ''}`, email.fromAddress],
      );
      const seen = new Set<string>();
      const items: DraftContextItem[] = [];
      for (const [kind, rows] of [
        ['thread', thread],
        ['similar', similar],
        ['sender', sender],
      ] as const) {
        for (const r of rows) {
          const key = `${r.email_id}:${r.text}`;
          if (seen.has(key)) continue;
          seen.add(key);
          items.push({ sourceId: r.email_id, kind, text: r.text });
        }
      }
      // Sender history comes on top of the limit: it is short, and the budget cuts later anyway.
      return [...items.filter((i) => i.kind !== 'sender').slice(0, limit), ...items.filter((i) => i.kind === 'sender')];
    },
  };
}

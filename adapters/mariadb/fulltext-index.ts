import { contextScope, entryCorrespondent, knowledgeSourceId, ownReplyItem } from '../../lib/context-scope';
import { splitPassages } from '../../lib/passages';
import type { DraftContextItem } from '../../ports/drafter';
import type { ContextScope, IndexableEmail, VectorIndex } from '../../ports/vector-index';
import { query, type Pool } from './pool';

interface Row {
  email_id: string;
  idx: number;
  text: string;
  title: string;
}

const KNOWLEDGE_LIMIT = 3;
const OWN_REPLY_LIMIT = 2;
const SENDER_LIMIT = 3;

/**
 * The embedded retrieval default: MariaDB full-text over passages. Every query is scoped to the
 * account and mailbox, and mail to the correspondent (or their organisation); our replies to
 * others come back masked, knowledge passages from anywhere.
 */
export function createFullTextIndex(pool: Pool): VectorIndex {
  return {
    name: 'mariadb-fulltext',
    async index(email: IndexableEmail): Promise<void> {
      const passages = splitPassages(`${email.subject}\n\n${email.text}`);
      const { correspondent, organisation } = entryCorrespondent(email);
      for (const [idx, text] of passages.entries()) {
        await query(
          pool,
          'indexing a passage',
          `INSERT INTO passages (email_id, idx, account, mailbox, thread_id, direction, from_address, correspondent, organisation, title, text)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON DUPLICATE KEY UPDATE text = VALUES(text), thread_id = VALUES(thread_id), mailbox = VALUES(mailbox),
             account = VALUES(account), direction = VALUES(direction), from_address = VALUES(from_address),
             correspondent = VALUES(correspondent), organisation = VALUES(organisation), title = VALUES(title)`,
          [
            email.emailId,
            idx,
            email.account ?? '',
            email.mailbox,
            email.threadId,
            email.direction,
            email.fromAddress,
            correspondent,
            organisation,
            email.subject.slice(0, 512),
            text,
          ],
        );
      }
      await query(pool, 'pruning old passages', 'DELETE FROM passages WHERE email_id = ? AND idx >= ?', [email.emailId, passages.length]);
    },

    async remove(sourceId: string): Promise<void> {
      await query(pool, 'removing passages', 'DELETE FROM passages WHERE email_id = ?', [sourceId]);
    },

    async retrieve(email: IndexableEmail, limit: number, given?: ContextScope): Promise<DraftContextItem[]> {
      const s = given ?? contextScope(email);
      const box = `account = ? AND mailbox = ? AND direction <> 'knowledge'`;
      const boxArgs = [s.account, s.mailbox];
      // The correspondent, or anyone of their organisation when that is allowed.
      const theirs = `(correspondent = ? OR (? IS NOT NULL AND organisation <=> ?))`;
      const theirArgs = [s.correspondent, s.organisation, s.organisation];
      const probe = `${email.subject} ${email.text.slice(0, 1000)}`;
      const select = 'SELECT email_id, idx, text, title FROM passages';

      const thread = await query<Row[]>(
        pool,
        'reading the thread history',
        `${select} WHERE ${box} AND thread_id = ? AND email_id <> ? ORDER BY created_at DESC, idx LIMIT ?`,
        [...boxArgs, email.threadId, email.emailId, limit],
      );
      const similar = s.correspondent
        ? await query<Row[]>(
            pool,
            'searching similar passages of the correspondent',
            `${select} WHERE ${box} AND ${theirs} AND email_id <> ? AND thread_id <> ?
               AND MATCH(text) AGAINST (? IN NATURAL LANGUAGE MODE)
             ORDER BY MATCH(text) AGAINST (? IN NATURAL LANGUAGE MODE) DESC LIMIT ?`,
            [...boxArgs, ...theirArgs, email.emailId, email.threadId, probe, probe, limit],
          )
        : [];
      // The correspondent's recent mail in other threads, even when the words differ.
      const sender = s.correspondent
        ? await query<Row[]>(
            pool,
            'reading the sender history',
            `${select} WHERE ${box} AND ${theirs} AND email_id <> ? AND thread_id <> ? AND idx = 0 AND direction = 'in'
             ORDER BY correspondent = ? DESC, created_at DESC LIMIT ?`,
            [...boxArgs, ...theirArgs, email.emailId, email.threadId, s.correspondent, SENDER_LIMIT],
          )
        : [];
      const knowledge = await query<Row[]>(
        pool,
        'searching the knowledge folder',
        `${select} WHERE direction = 'knowledge' AND MATCH(text) AGAINST (? IN NATURAL LANGUAGE MODE)
         ORDER BY MATCH(text) AGAINST (? IN NATURAL LANGUAGE MODE) DESC LIMIT ?`,
        [probe, probe, KNOWLEDGE_LIMIT],
      );
      // Our replies to anyone else: reusable wording, never their personal data (masked below).
      const ownReplies =
        s.reuseReplies === 'masked'
          ? await query<Row[]>(
              pool,
              'searching our replies to others',
              `${select} WHERE ${box} AND direction = 'out' AND NOT ${theirs} AND thread_id <> ?
                 AND MATCH(text) AGAINST (? IN NATURAL LANGUAGE MODE)
               ORDER BY MATCH(text) AGAINST (? IN NATURAL LANGUAGE MODE) DESC LIMIT ?`,
              [...boxArgs, ...theirArgs, email.threadId, probe, probe, OWN_REPLY_LIMIT],
            )
          : [];

      const seen = new Set<string>();
      const items: DraftContextItem[] = [];
      const add = (item: DraftContextItem) => {
        const key = `${item.sourceId}:${item.text}`;
        if (seen.has(key)) return;
        seen.add(key);
        items.push(item);
      };
      const mail = (kind: 'thread' | 'similar' | 'sender', r: Row): DraftContextItem => ({
        sourceId: r.email_id,
        kind,
        text: r.text,
        ...(r.title ? { title: r.title } : {}),
      });
      for (const r of thread) add(mail('thread', r));
      for (const r of similar) add(mail('similar', r));
      const main = items.splice(0).slice(0, limit);
      items.push(...main);
      for (const r of knowledge) add({ sourceId: knowledgeSourceId(r.email_id, r.idx), kind: 'knowledge', text: r.text, title: r.title });
      for (const r of ownReplies) add(ownReplyItem(r.email_id, r.text, r.title));
      // Sender history comes on top of the limit: it is short, and the budget cuts later anyway.
      for (const r of sender) add(mail('sender', r));
      return items;
    },
  };
}

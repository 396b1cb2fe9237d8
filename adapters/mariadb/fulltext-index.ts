import { contextScope, entryCorrespondent, knowledgeSourceId, ownReplyItem } from '../../lib/context-scope';
import { splitPassages } from '../../lib/passages';
import { rankPassages } from '../../lib/passage-ranking';
import type { DraftContextItem } from '../../ports/drafter';
import type { ContextScope, IndexableEmail, VectorIndex } from '../../ports/vector-index';
import { query, type Pool } from './pool';
import {
  knowledgeSearch,
  ownRecentReplies,
  theirRecentPassages,
  threadHistory,
  type PassageRow,
  type Statement,
} from './scoped-passage-queries';

type Row = Pick<PassageRow, 'email_id' | 'idx' | 'text' | 'title'>;

const KNOWLEDGE_LIMIT = 3;
const OWN_REPLY_LIMIT = 2;
const SENDER_LIMIT = 3;

/** The columns of a `passages` row, in the order of passageRows. */
export const PASSAGE_COLUMNS = [
  'email_id',
  'idx',
  'account',
  'mailbox',
  'thread_id',
  'direction',
  'from_address',
  'correspondent',
  'organisation',
  'title',
  'text',
] as const;

/** An email's passages as `passages` rows (PASSAGE_COLUMNS order), with its isolation keys. */
export function passageRows(email: IndexableEmail): unknown[][] {
  const { correspondent, organisation } = entryCorrespondent(email);
  return splitPassages(`${email.subject}\n\n${email.text}`).map((text, idx) => [
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
  ]);
}

/**
 * The embedded retrieval default over MariaDB. Every query is scoped to the account and mailbox,
 * and mail to the correspondent (or their organisation); our replies to others come back masked,
 * knowledge passages from anywhere. Mail is read by scope (newest first, capped) and ranked in
 * process, so a retrieval costs what the scope holds; the knowledge folder is searched with
 * MariaDB full text over its own table (see scoped-passage-queries.ts).
 */
export function createFullTextIndex(pool: Pool): VectorIndex {
  return {
    name: 'mariadb-fulltext',
    async index(email: IndexableEmail): Promise<void> {
      const rows = passageRows(email);
      if (rows.length > 0) {
        // One statement for all passages of the email: a round trip per passage cost MariaDB more than the rows.
        await query(
          pool,
          'indexing passages',
          `INSERT INTO passages (${PASSAGE_COLUMNS.join(', ')})
           VALUES ${rows.map(() => `(${PASSAGE_COLUMNS.map(() => '?').join(', ')})`).join(', ')}
           ON DUPLICATE KEY UPDATE text = VALUES(text), thread_id = VALUES(thread_id), mailbox = VALUES(mailbox),
             account = VALUES(account), direction = VALUES(direction), from_address = VALUES(from_address),
             correspondent = VALUES(correspondent), organisation = VALUES(organisation), title = VALUES(title)`,
          rows.flat(),
        );
      }
      await query(pool, 'pruning old passages', 'DELETE FROM passages WHERE email_id = ? AND idx >= ?', [email.emailId, rows.length]);
      if (email.direction === 'knowledge') {
        await indexKnowledge(
          pool,
          email.emailId,
          email.subject.slice(0, 512),
          rows.map((r) => r[PASSAGE_COLUMNS.indexOf('text')] as string),
        );
      }
    },

    async remove(sourceId: string): Promise<void> {
      await query(pool, 'removing passages', 'DELETE FROM passages WHERE email_id = ?', [sourceId]);
      await query(pool, 'removing knowledge passages', 'DELETE FROM knowledge_passages WHERE source_id = ?', [sourceId]);
    },

    async retrieve(email: IndexableEmail, limit: number, given?: ContextScope): Promise<DraftContextItem[]> {
      const s = given ?? contextScope(email);
      const probe = `${email.subject} ${email.text.slice(0, 1000)}`;
      const run = <T>(what: string, st: Statement) => query<T[]>(pool, what, st.sql, st.args);

      const thread = await run<Row>('reading the thread history', threadHistory(s, email.threadId, email.emailId, limit));
      const theirs = s.correspondent
        ? newestFirst(
            await run<PassageRow>('reading the correspondent’s recent passages', theirRecentPassages(s, email.threadId, email.emailId)),
          )
        : [];
      const similar = rankPassages(probe, theirs, (r) => r.text)
        .slice(0, limit)
        .map((r) => r.item);
      // The correspondent's recent mail in other threads, even when the words differ.
      const sender = theirs
        .filter((r) => r.idx === 0 && r.direction === 'in')
        .sort((a, b) => Number(b.correspondent === s.correspondent) - Number(a.correspondent === s.correspondent))
        .slice(0, SENDER_LIMIT);
      const knowledge = await run<Row>('searching the knowledge folder', knowledgeSearch(probe, KNOWLEDGE_LIMIT));
      // Our replies to anyone else: reusable wording, never their personal data (masked below).
      const ownReplies =
        s.reuseReplies === 'masked'
          ? rankPassages(
              probe,
              await run<PassageRow>('reading our recent replies to others', ownRecentReplies(s, email.threadId)),
              (r) => r.text,
            )
              .slice(0, OWN_REPLY_LIMIT)
              .map((r) => r.item)
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

/** Newest first, one email's passages in order: the two branches of a scope query merged. */
function newestFirst(rows: PassageRow[]): PassageRow[] {
  return rows.sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || a.email_id.localeCompare(b.email_id) || a.idx - b.idx);
}

/** The knowledge folder's own full-text table, kept in step with its rows in `passages`. */
async function indexKnowledge(pool: Pool, sourceId: string, title: string, passages: string[]): Promise<void> {
  for (const [idx, text] of passages.entries()) {
    await query(
      pool,
      'indexing a knowledge passage',
      `INSERT INTO knowledge_passages (source_id, idx, title, text) VALUES (?, ?, ?, ?)
       ON DUPLICATE KEY UPDATE title = VALUES(title), text = VALUES(text)`,
      [sourceId, idx, title, text],
    );
  }
  await query(pool, 'pruning old knowledge passages', 'DELETE FROM knowledge_passages WHERE source_id = ? AND idx >= ?', [
    sourceId,
    passages.length,
  ]);
}

/**
 * The statements behind full-text retrieval, each bounded by its scope: they walk a B-tree index
 * on (account, mailbox, correspondent | organisation | direction, created_at) newest first and
 * stop after a cap, so their cost follows the correspondent's mail, not the size of `passages`.
 * None puts MATCH on `passages` in a WHERE clause: MariaDB would then answer from the FULLTEXT
 * index first and filter the scope afterwards. Exported for the EXPLAIN test that holds this.
 */
import type { ContextScope } from './vector-index.port';

export interface PassageRow {
  email_id: string;
  idx: number;
  text: string;
  title: string;
  correspondent: string;
  direction: 'in' | 'out' | 'knowledge';
  created_at: Date;
  /** Only when asked for (`withVectors`): the stored vector (not of our replies: passageVectors) and the model that made it. */
  embedding?: Buffer | null;
  embedding_model?: string | null;
}

export interface Statement {
  sql: string;
  args: unknown[];
}

/** How many recent passages of a scope are ranked: a few hundred mails' worth of a correspondent. */
export const SCOPE_CANDIDATES = 300;

const COLUMNS = 'email_id, idx, text, title, correspondent, direction, created_at';
// Read only when vectors rank: 1.5 KB a passage that words-only retrieval need not carry.
const VECTOR_COLUMNS = `${COLUMNS}, embedding, embedding_model`;
const columns = (withVectors: boolean) => (withVectors ? VECTOR_COLUMNS : COLUMNS);
// Our recent replies are the same few hundred passages for every draft of a mailbox, whose vectors
// the worker remembers: only the model is read with them, the vectors of the others by
// passageVectors() (2 KB a passage at 512 dimensions that need not cross the wire each time).
const MODEL_COLUMNS = `${COLUMNS}, embedding_model`;
const BOX = `account = ? AND mailbox = ? AND direction <> 'knowledge'`;

/** The rest of this thread in the mailbox, newest first (the thread index bounds it). */
export function threadHistory(s: ContextScope, threadId: string, emailId: string, limit: number): Statement {
  return {
    sql: `SELECT ${COLUMNS} FROM passages WHERE ${BOX} AND thread_id = ? AND email_id <> ? ORDER BY created_at DESC, idx LIMIT ?`,
    args: [s.account, s.mailbox, threadId, emailId, limit],
  };
}

// Scope reads order by created_at alone: any further key (even the primary key columns the index
// carries) turns MariaDB's ordered index walk into a filesort of the whole scope.

/**
 * The correspondent's, and when allowed their organisation's, most recent passages in other
 * threads: two index walks (one per branch, so neither crowds the other out), each capped.
 */
export function theirRecentPassages(
  s: ContextScope,
  threadId: string,
  emailId: string,
  cap = SCOPE_CANDIDATES,
  withVectors = false,
): Statement {
  const COLUMNS = columns(withVectors);
  const rest = `AND email_id <> ? AND thread_id <> ? ORDER BY created_at DESC LIMIT ?`;
  const own = `(SELECT ${COLUMNS} FROM passages WHERE ${BOX} AND correspondent = ? ${rest})`;
  const args: unknown[] = [s.account, s.mailbox, s.correspondent, emailId, threadId, cap];
  if (s.organisation === null) return { sql: own, args };
  const colleagues = `(SELECT ${COLUMNS} FROM passages WHERE ${BOX} AND organisation = ? AND correspondent <> ? ${rest})`;
  return {
    sql: `${own} UNION ALL ${colleagues}`,
    args: [...args, s.account, s.mailbox, s.organisation, s.correspondent, emailId, threadId, cap],
  };
}

/**
 * Our most recent replies in the mailbox to anyone outside the scope (shown masked), newest
 * first: a window of the mailbox's replies, never all of them.
 */
export function ownRecentReplies(s: ContextScope, threadId: string, cap = SCOPE_CANDIDATES, withVectors = false): Statement {
  return {
    sql: `SELECT ${withVectors ? MODEL_COLUMNS : COLUMNS} FROM passages
          WHERE account = ? AND mailbox = ? AND direction = 'out' AND thread_id <> ?
            AND NOT (correspondent = ? OR (? IS NOT NULL AND organisation <=> ?))
          ORDER BY created_at DESC LIMIT ?`,
    args: [s.account, s.mailbox, threadId, s.correspondent, s.organisation, s.organisation, cap],
  };
}

/**
 * The stored vectors (and texts, to tell a passage re-indexed meanwhile) of these passages, by
 * primary key: our recent replies whose vectors the worker does not remember.
 */
export function passageVectors(keys: ReadonlyArray<{ email_id: string; idx: number }>): Statement {
  return {
    sql: `SELECT email_id, idx, text, embedding, embedding_model FROM passages
          WHERE ${keys.map(() => '(email_id = ? AND idx = ?)').join(' OR ')}`,
    args: keys.flatMap((k) => [k.email_id, k.idx]),
  };
}

/** Knowledge passages by id (the nearest-neighbour index's hits), with their stored vectors. */
export function knowledgeByIds(ids: readonly number[]): Statement {
  return {
    sql: `SELECT id, source_id AS email_id, idx, text, title, embedding, embedding_model FROM knowledge_passages
          WHERE id IN (${ids.map(() => '?').join(', ')})`,
    args: [...ids],
  };
}

/**
 * The knowledge folder's best passages: full text over the folder's own table only, with `words`
 * the mail's informative words (informative-terms.ts), not the whole mail: MATCH scores every
 * passage sharing any of them.
 */
export function knowledgeSearch(words: string, limit: number): Statement {
  return {
    sql: `SELECT id, source_id AS email_id, idx, text, title, embedding, embedding_model FROM knowledge_passages
          WHERE MATCH(text) AGAINST (? IN NATURAL LANGUAGE MODE)
          ORDER BY MATCH(text) AGAINST (? IN NATURAL LANGUAGE MODE) DESC LIMIT ?`,
    args: [words, words, limit],
  };
}

/**
 * Approved replies as examples, read from `draft_outcomes` (the decision and its category, by the
 * index on mailbox, category and decision time) with the draft as it was sent and the answered
 * mail, whose sender's names, addresses and numbers mask the reply beyond what the patterns find.
 */
import { createHash } from 'node:crypto';
import { AUTONOMY_ACTOR_LIKE, DRAFT_OUTCOME } from './drafting.contract';
import { query, sqlList, type Pool } from '../platform/pool.mariadb';
import { knownFromMails } from '../retrieval';
import type { ApprovedExamples } from './approved-examples.port';
import { maskedExample } from './example-masking';

/** Accepted as a person would send them: unchanged or a light edit (under 40 % of words changed). */
const ACCEPTED = sqlList([DRAFT_OUTCOME.approvedUnchanged, DRAFT_OUTCOME.lightEdit]);
/** Read per reply before masking: far beyond any example's length, short of a pasted document. */
const READ_CHARS = 20_000;
/**
 * Masked examples kept per worker. Every draft of a category takes the same newest few replies,
 * and masking one (known data, patterns, the name gazetteer) costs milliseconds of CPU: with a
 * few hundred approved replies per category it was a large share of the draft step. Keyed by
 * everything the masking reads, so an edited or erased reply is masked afresh; 512 entries of at
 * most DRAFT_EXAMPLE_CHARS are well under a megabyte.
 */
export const REMEMBERED_EXAMPLES = 512;

interface ExampleRow {
  body: string;
  to_name: string;
  to_address: string;
  from_name: string | null;
  from_address: string | null;
  reply_to_name: string | null;
  reply_to_address: string | null;
  text_body: string | null;
}

/** The masked example of a row, remembered by the row's whole content and the length asked for. */
function exampleMemory(size: number): (row: ExampleRow, maxChars: number) => string {
  const memory = new Map<string, string>();
  return (r, maxChars) => {
    const key = createHash('sha256')
      .update(JSON.stringify([maxChars, r]))
      .digest('base64');
    const kept = memory.get(key);
    if (kept !== undefined) {
      // Least recently used first out.
      memory.delete(key);
      memory.set(key, kept);
      return kept;
    }
    const known = knownFromMails([
      { fromName: r.to_name, fromAddress: r.to_address },
      {
        fromName: r.from_name,
        fromAddress: r.from_address,
        replyToName: r.reply_to_name,
        replyToAddress: r.reply_to_address,
        text: r.text_body,
      },
    ]);
    const text = maskedExample(r.body, known, maxChars);
    memory.set(key, text);
    if (memory.size > size) memory.delete(memory.keys().next().value as string);
    return text;
  };
}

export function createMariaDbApprovedExamples(pool: Pool, options: { remember?: number } = {}): ApprovedExamples {
  const masked = exampleMemory(options.remember ?? REMEMBERED_EXAMPLES);
  return {
    async recent(q) {
      if (q.limit <= 0) return [];
      const rows = await query<ExampleRow[]>(
        pool,
        'reading approved replies as examples',
        // A send approved by earned autonomy is no person's judgement (as in the autonomy record).
        `SELECT LEFT(COALESCE(d.approved_body, d.body), ${READ_CHARS}) AS body, d.to_name, d.to_address,
                e.from_name, e.from_address, e.reply_to_name, e.reply_to_address, LEFT(e.text_body, ${READ_CHARS}) AS text_body
           FROM draft_outcomes o
           JOIN drafts d ON d.id = o.draft_id
           LEFT JOIN emails e ON e.id = o.email_id
          WHERE o.mailbox_id = ? AND o.category = ? AND o.outcome IN (${ACCEPTED}) AND o.email_id <> ?
            AND (o.decided_by IS NULL OR o.decided_by NOT LIKE '${AUTONOMY_ACTOR_LIKE}')
            AND TRIM(COALESCE(d.approved_body, d.body)) <> ''
          ORDER BY o.decided_at DESC, o.draft_id DESC
          LIMIT ?`,
        [q.mailboxId, q.category, q.excludeEmailId ?? '', q.limit],
      );
      return rows.flatMap((r) => {
        const text = masked(r, q.maxChars);
        return text ? [{ text }] : [];
      });
    },
  };
}

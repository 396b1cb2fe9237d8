import { DRAFT_STATUS, type GroundingVerdict } from './drafting.contract';
import { query, type Pool } from '../platform/pool.mariadb';
import { inTransaction } from '../platform/transaction.mariadb';
import type { DraftClaimStore, StoredClaim } from './draft-claims.port';

interface ClaimRow {
  sentence_index: number;
  sentence: string;
  cited_ids: string;
  verdict: string;
  supported_by: string;
  checked_by: string;
}

const list = (raw: string): string[] => {
  try {
    const v = JSON.parse(raw) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
};

export function createMariaDbDraftClaimStore(pool: Pool): DraftClaimStore {
  return {
    async save(draft, result): Promise<void> {
      const claims = result.sentences.filter((s) => s.verdict !== null);
      await inTransaction(pool, 'saving the claims of a draft', async (conn) => {
        // Like the draft itself: a late retry of the draft step never rewrites a decided draft's claims.
        const open = await query<Array<{ id: string }>>(
          conn,
          'reading the draft of the claims',
          `SELECT id FROM drafts WHERE id = ? AND status = '${DRAFT_STATUS.awaitingApproval}' FOR UPDATE`,
          [draft.id],
        );
        if (open.length === 0) return;
        // Only rows that exist are deleted, each by its key: a range delete (`NOT IN`) takes gap locks
        // that deadlocked concurrent drafts' inserts (seen at 32 drafts in flight). The first save
        // of a draft, the usual case, finds none and deletes nothing. The read is a plain one: the
        // draft's row lock above already keeps a concurrent retry of the same draft out.
        const keep = new Set(claims.map((c) => c.index));
        const stored = await query<Array<{ sentence_index: number }>>(
          conn,
          'reading the claims a draft has',
          'SELECT sentence_index FROM draft_claims WHERE draft_id = ?',
          [draft.id],
        );
        const stale = stored.map((r) => Number(r.sentence_index)).filter((i) => !keep.has(i));
        if (stale.length > 0)
          await query(
            conn,
            'removing claims the draft no longer has',
            `DELETE FROM draft_claims WHERE draft_id = ? AND sentence_index IN (${stale.map(() => '?').join(', ')})`,
            [draft.id, ...stale],
          );
        // All claims in one statement: a round trip per sentence cost more than its row.
        if (claims.length === 0) return;
        await query(
          conn,
          'saving the claims',
          `INSERT INTO draft_claims (draft_id, sentence_index, email_id, sentence, cited_ids, verdict, supported_by, checked_by)
           VALUES ${claims.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}
           ON DUPLICATE KEY UPDATE sentence = VALUES(sentence), cited_ids = VALUES(cited_ids), verdict = VALUES(verdict),
             supported_by = VALUES(supported_by), checked_by = VALUES(checked_by)`,
          claims.flatMap((c) => [
            draft.id,
            c.index,
            draft.emailId,
            c.text.slice(0, 2_000),
            JSON.stringify(c.citedIds.slice(0, 10)),
            c.verdict,
            JSON.stringify(c.supportedBy),
            result.by,
          ]),
        );
      });
    },
    async list(draftId: string): Promise<StoredClaim[]> {
      const rows = await query<ClaimRow[]>(
        pool,
        'reading the claims of a draft',
        'SELECT sentence_index, sentence, cited_ids, verdict, supported_by, checked_by FROM draft_claims WHERE draft_id = ? ORDER BY sentence_index',
        [draftId],
      );
      return rows.map((r) => ({
        sentenceIndex: Number(r.sentence_index),
        sentence: r.sentence,
        citedIds: list(r.cited_ids),
        verdict: r.verdict as GroundingVerdict,
        supportedBy: list(r.supported_by),
        checkedBy: r.checked_by,
      }));
    },
  };
}

import { createMariaDbDraftClaimStore } from '../../src/drafting/draft-claims.mariadb';
import type { Pool } from '../../src/platform/pool.mariadb';

const VERDICT_WORDS: Record<string, string> = { supported: 'supported', unsupported: 'UNSUPPORTED', mis_tied: 'MIS-TIED' };

/**
 * What a reviewer sees of one draft on its review page, as text: the guidance versions it was
 * written under, its category from the installation's list, and each factual sentence with the
 * sources the grounding check found for it (read through the product's own claim store).
 */
export async function draftGrounding(pool: Pool, emailId: string): Promise<string[]> {
  const [draft] = (await pool.query(
    'SELECT id, category, guidance_version, prompt_version FROM drafts WHERE email_id = ? ORDER BY version DESC LIMIT 1',
    [emailId],
  )) as Array<{ id: string; category: string | null; guidance_version: string | null; prompt_version: string }>;
  if (!draft) return [`no draft for ${emailId}`];
  const claims = await createMariaDbDraftClaimStore(pool).list(draft.id);
  const supported = claims.filter((c) => c.verdict === 'supported').length;
  const lines = [
    `${draft.id}: category ${draft.category ?? '-'} (from the category list), prompt ${draft.prompt_version}, written under guidance ${draft.guidance_version ?? 'none'}`,
    `${supported} of ${claims.length} factual sentences supported:`,
  ];
  for (const c of claims) {
    const sources = c.supportedBy.length > 0 ? c.supportedBy : c.citedIds;
    const text = c.sentence.length > 110 ? `${c.sentence.slice(0, 109)}…` : c.sentence;
    lines.push(`  [${VERDICT_WORDS[c.verdict] ?? c.verdict}] ${text}`, `      ← ${sources.join(', ') || 'no source'}`);
  }
  return lines;
}

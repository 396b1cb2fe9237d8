import type { Pool } from '../../src/platform/pool.mariadb';

interface ClaimRow {
  sentence: string;
  cited_ids: string;
  verdict: string;
  supported_by: string;
}

const VERDICT_WORDS: Record<string, string> = { supported: 'supported', unsupported: 'UNSUPPORTED', mis_tied: 'MIS-TIED' };

const ids = (json: string): string[] => {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
};

/**
 * What a reviewer sees of one draft on its review page, as text: the guidance versions it was
 * written under, its category from the installation's list, and each factual sentence with the
 * sources the grounding check found for it.
 */
export async function draftGrounding(pool: Pool, emailId: string): Promise<string[]> {
  const [draft] = (await pool.query(
    'SELECT id, category, guidance_version, prompt_version FROM drafts WHERE email_id = ? ORDER BY version DESC LIMIT 1',
    [emailId],
  )) as Array<{ id: string; category: string | null; guidance_version: string | null; prompt_version: string }>;
  if (!draft) return [`no draft for ${emailId}`];
  const claims = (await pool.query(
    'SELECT sentence, cited_ids, verdict, supported_by FROM draft_claims WHERE draft_id = ? ORDER BY sentence_index',
    [draft.id],
  )) as ClaimRow[];
  const supported = claims.filter((c) => c.verdict === 'supported').length;
  const lines = [
    `${draft.id}: category ${draft.category ?? '-'} (from the category list), prompt ${draft.prompt_version}, written under guidance ${draft.guidance_version ?? 'none'}`,
    `${supported} of ${claims.length} factual sentences supported:`,
  ];
  for (const c of claims) {
    const sources = ids(c.supported_by).length > 0 ? ids(c.supported_by) : ids(c.cited_ids);
    const text = c.sentence.length > 110 ? `${c.sentence.slice(0, 109)}…` : c.sentence;
    lines.push(`  [${VERDICT_WORDS[c.verdict] ?? c.verdict}] ${text}`, `      ← ${sources.join(', ') || 'no source'}`);
  }
  return lines;
}

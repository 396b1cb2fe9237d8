/** The sources of a draft, shown to the reviewer as the model saw them. */
import { maskPersonalData } from '../retrieval';
import { createMariaDbPersonalData } from '../retrieval/index.adapters';
import { query, type Pool } from '../platform/pool.mariadb';

export interface SourceText {
  id: string;
  kind: 'knowledge' | 'email' | 'own_reply_masked';
  title: string;
  text: string;
}

/**
 * One source of a draft as the model saw it: a knowledge passage, the correspondent's own mail
 * as text, or our reply to another customer with personal data masked.
 */
export async function readDraftSource(pool: Pool, sourceId: string, correspondent: string): Promise<SourceText | null> {
  const knowledge = /^(.*)#(\d+)$/.exec(sourceId);
  if (knowledge) {
    const rows = await query<Array<{ title: string; text: string }>>(
      pool,
      'reading a knowledge passage',
      `SELECT title, text FROM passages WHERE email_id = ? AND idx = ? AND direction = 'knowledge'`,
      [knowledge[1], Number(knowledge[2]) - 1],
    );
    if (rows[0]) return { id: sourceId, kind: 'knowledge', title: rows[0].title || knowledge[1]!, text: rows[0].text };
  }
  const passages = await query<Array<{ direction: string; correspondent: string; title: string; text: string }>>(
    pool,
    'reading source passages',
    'SELECT direction, correspondent, title, text FROM passages WHERE email_id = ? ORDER BY idx',
    [sourceId],
  );
  const ours = passages.find((p) => p.direction === 'out');
  if (ours && ours.correspondent.toLowerCase() !== correspondent.toLowerCase()) {
    // Masked as the model saw it: by what is known of its recipient, then by patterns.
    const known = (await createMariaDbPersonalData(pool).knownFor([sourceId])).get(sourceId);
    return {
      id: sourceId,
      kind: 'own_reply_masked',
      title: maskPersonalData(ours.title, known),
      text: maskPersonalData(passages.map((p) => p.text).join('\n'), known),
    };
  }
  const [mail] = await query<Array<{ subject: string | null; text_body: string | null }>>(
    pool,
    'reading a source email',
    'SELECT subject, text_body FROM emails WHERE id = ?',
    [sourceId],
  );
  if (mail) return { id: sourceId, kind: 'email', title: mail.subject ?? sourceId, text: mail.text_body ?? '' };
  if (passages.length > 0) return { id: sourceId, kind: 'email', title: passages[0]!.title, text: passages.map((p) => p.text).join('\n') };
  return null;
}

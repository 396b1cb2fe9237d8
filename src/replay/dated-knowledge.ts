/**
 * The knowledge folder as it stood on a given day. A file counts from the date it names itself in
 * a `valid_from: YYYY-MM-DD` line among its first lines (front matter or plain text); without one,
 * from when the knowledge ledger last saw its content change (`knowledge_files.indexed_at`, so
 * the content as it stands now); a file the ledger never indexed has no date and is used by no
 * replayed mail. A file dated after a mail is left out of that mail's draft: the team did not have
 * it then. Earlier versions of a file are not kept anywhere, so a file that changed is replayed in
 * its current wording from its date on (docs/replay.md, "Limits").
 */
import type { KnowledgeFile } from '../retrieval';

export type KnowledgeDating = 'valid_from' | 'ledger' | 'undated';

export interface DatedKnowledgeFile {
  path: string;
  /** The text without its `valid_from` line. */
  text: string;
  validFrom: Date | null;
  dating: KnowledgeDating;
}

const VALID_FROM = /^[ \t]*valid[_-]from[ \t]*:[ \t]*["']?(\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?)["']?[ \t]*$/im;
/** How far into a file its date line may stand: front matter, or the first lines of a plain file. */
const HEAD_LINES = 20;

export function validFromLine(text: string): Date | null {
  const head = text.split(/\r?\n/).slice(0, HEAD_LINES).join('\n');
  const m = VALID_FROM.exec(head);
  if (!m) return null;
  const at = new Date(m[1]!.length === 10 ? `${m[1]}T00:00:00Z` : m[1]!);
  return Number.isNaN(at.getTime()) ? null : at;
}

export function dateKnowledge(files: readonly KnowledgeFile[], ledger: ReadonlyMap<string, Date>): DatedKnowledgeFile[] {
  return files.map((f) => {
    const own = validFromLine(f.text);
    const text = own ? f.text.replace(VALID_FROM, '').replace(/^---\s*\n---\s*\n/, '') : f.text;
    if (own) return { path: f.path, text, validFrom: own, dating: 'valid_from' as const };
    const seen = ledger.get(f.path);
    return seen
      ? { path: f.path, text, validFrom: seen, dating: 'ledger' as const }
      : { path: f.path, text, validFrom: null, dating: 'undated' as const };
  });
}

/** The files a mail received at `at` may draw on. */
export function knowledgeAsOf(files: readonly DatedKnowledgeFile[], at: Date): DatedKnowledgeFile[] {
  return files.filter((f) => f.validFrom !== null && f.validFrom.getTime() <= at.getTime());
}

/**
 * What a reviewer types into the queue's search box, turned into terms the indexes can answer:
 * the text as an exact id (email or case), as a sender prefix (address or display name, LIKE with
 * its wildcards escaped) and as subject words (full-text, boolean mode, every word required as a
 * prefix). Operators and quotes never reach the full-text parser: only letters and digits do.
 */
export const QUEUE_SEARCH_MAX_CHARS = 200;
/** InnoDB's full-text index holds no shorter words (innodb_ft_min_token_size) and none longer than 84. */
const MIN_WORD = 3;
const MAX_WORD = 84;
const MAX_WORDS = 10;

export interface QueueSearchTerms {
  /** Compared with emails.id and emails.case_id. */
  exact: string;
  /** `text%` with `\`, `%` and `_` escaped; null when nothing is left to match. */
  prefix: string | null;
  /** A boolean-mode full-text query (`+word* +word*`), or null without a usable word. */
  words: string | null;
}

/** The search text as it is used: control characters and broken surrogates out, spaces collapsed. */
export function cleanSearch(text: string): string {
  return text
    .replace(/[\p{Cc}\p{Cs}\p{Cf}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export function queueSearchTerms(text: string): QueueSearchTerms | null {
  const clean = cleanSearch(text).slice(0, QUEUE_SEARCH_MAX_CHARS);
  if (!clean) return null;
  const words = [...new Set((clean.match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= MIN_WORD))]
    .slice(0, MAX_WORDS)
    .map((w) => `+${w.slice(0, MAX_WORD)}*`);
  return {
    exact: clean,
    prefix: `${clean.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
    words: words.length ? words.join(' ') : null,
  };
}

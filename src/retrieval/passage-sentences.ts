/** A sentence longer than this is a run-on text block (a table, a signature dump), not a quotable sentence. */
const MAX_SENTENCE_CHARS = 400;

/**
 * Sentences of a passage: wrapped lines joined, headings dropped, list items kept apart. `title`
 * names the passage (a knowledge file's path, a mail's subject): a line that only repeats it is
 * dropped like a heading. A passage indexed before passages kept their line breaks ("# Billing
 * ## Double charge If an invoice …") still works when its headings are given in `title`: those
 * are cut off; other inline headings lose only their marks.
 */
export function sentencesOf(text: string, title = ''): string[] {
  const headings = title
    .split(/(?<!\s)\s+[›>/|–-]\s+/)
    .map((h) => h.replace(/^#+\s*/, '').trim())
    .filter((h) => h.length > 0)
    .sort((a, b) => b.length - a.length);
  const isTitleLine = (line: string): boolean => headings.some((h) => line.trim().toLowerCase() === h.toLowerCase());
  const segments: string[] = [];
  let current = '';
  const flush = (): void => {
    if (current.trim()) segments.push(current);
    current = '';
  };
  for (const line of text.split(/\r?\n/)) {
    const inline = /\S\s+#{1,6}\s/.test(line) || (/^\s*#/.test(line) && line.length > 120);
    if (inline) {
      flush();
      for (const piece of line.split(/(?:^|\s)#{1,6}\s+/)) {
        const heading = headings.find((h) => piece.trimStart().toLowerCase().startsWith(h.toLowerCase()));
        segments.push(heading ? piece.trimStart().slice(heading.length) : piece);
      }
      continue;
    }
    const heading = /^\s*#/.test(line) || isTitleLine(line);
    const listItem = /^\s*([-*•]|\d+[.)])\s+/.test(line);
    if (heading || line.trim() === '' || listItem) flush();
    if (heading) continue;
    current += ` ${line.replace(/^\s*([-*•]|\d+[.)])\s+/, '')}`;
  }
  flush();
  return (
    segments
      .flatMap((seg) => seg.replace(/\*\*|__|`/g, '').split(/(?<=[.!?])\s+(?=[\p{Lu}\d„"])/u))
      .map((s) => s.replace(/\s+/g, ' ').trim())
      // A heading on its own: a few words without a sentence's punctuation; a path or address alone is one word.
      .filter((s) => s.includes(' ') && (/[.!?:;,)"“]/.test(s) || s.split(' ').length > 8))
      .filter((s) => s.length >= 20 && s.length <= MAX_SENTENCE_CHARS)
  );
}

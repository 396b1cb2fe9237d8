/**
 * Splits an email body into passages for retrieval: paragraphs joined up to a size, quoted
 * history ("> " lines) dropped because it is indexed with the email it came from. Line breaks
 * stay (spaces within a line are collapsed): a Markdown heading or a subject line keeps its own
 * line, so the drafter can tell it from the sentences that follow instead of reading
 * "Doppelte Abbuchung Wurde ein Rechnungsbetrag …" as one sentence. Full-text and vector search
 * read a line break as any other space.
 */
export function splitPassages(text: string, maxChars = 800): string[] {
  const paragraphs = text
    .split(/\r?\n/)
    .filter((line) => !line.trimStart().startsWith('>'))
    .join('\n')
    .split(/\n\s*\n/)
    .map((p) =>
      p
        .split('\n')
        .map((line) => line.replace(/\s+/g, ' ').trim())
        .filter((line) => line.length > 0)
        .join('\n'),
    )
    .filter((p) => p.length > 0);
  const out: string[] = [];
  let current = '';
  for (const p of paragraphs) {
    for (let i = 0, end = 0; i < p.length; i = end) {
      end = Math.min(p.length, i + maxChars);
      // Never between the two halves of a surrogate pair (an emoji): a lone half is no UTF-8, and embedders refuse it.
      if (end < p.length && end - 1 > i && /[\uD800-\uDBFF]/.test(p[end - 1]!)) end -= 1;
      const piece = p.slice(i, end).trim();
      if (!piece) continue;
      if (current && current.length + piece.length + 2 > maxChars) {
        out.push(current);
        current = '';
      }
      current = current ? `${current}\n\n${piece}` : piece;
    }
  }
  if (current) out.push(current);
  return out;
}

/**
 * The passages an email is indexed as: its subject and text, split, then the text read from its
 * attachments, each passage opening with the citation of its page (`attachment:<file>#p3`) so
 * that whoever finds it later knows where it came from. Every index splits alike.
 */
export function emailPassages(email: {
  subject: string;
  text: string;
  attachments?: ReadonlyArray<{ sourceId: string; text: string }>;
}): string[] {
  const own = splitPassages(`${email.subject}\n\n${email.text}`);
  const attached = (email.attachments ?? []).flatMap((a) => splitPassages(a.text, 760).map((p) => `${a.sourceId}\n${p}`));
  return [...own, ...attached];
}

/** How much of a new email retrieval searches with: its subject and the start of its text. */
export function retrievalProbe(email: { subject: string; text: string }): string {
  return `${email.subject} ${email.text.slice(0, 1000)}`.trim();
}

/**
 * The text a new email is searched with by meaning: its first passage, the very text its index
 * step embedded (subject and the start of its text, quoted history left out). An embedder that
 * embeds queries and passages alike (no E5 prefixes) then answers the probe from memory
 * (vector-memory.ts) instead of a second request per email.
 */
export function vectorProbe(email: { subject: string; text: string }): string {
  return emailPassages({ subject: email.subject, text: email.text })[0] ?? '';
}

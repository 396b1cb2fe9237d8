/**
 * Splits an email body into passages for retrieval: paragraphs joined up to a size, quoted
 * history ("> " lines) dropped because it is indexed with the email it came from.
 */
export function splitPassages(text: string, maxChars = 800): string[] {
  const paragraphs = text
    .split(/\r?\n/)
    .filter((line) => !line.trimStart().startsWith('>'))
    .join('\n')
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p.length > 0);
  const out: string[] = [];
  let current = '';
  for (const p of paragraphs) {
    for (let i = 0; i < p.length; i += maxChars) {
      const piece = p.slice(i, i + maxChars);
      if (current && current.length + piece.length + 1 > maxChars) {
        out.push(current);
        current = '';
      }
      current = current ? `${current} ${piece}` : piece;
    }
  }
  if (current) out.push(current);
  return out;
}

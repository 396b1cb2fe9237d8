/**
 * An approved reply made fit to show a model as an example for another customer's draft: personal
 * data masked as our reused replies are (what is known of its recipient first, then the patterns
 * and the name gazetteer: src/retrieval/mask-personal-data.ts), then cut to a length. Masking
 * comes first: a cut through an IBAN or a name would leave a piece no pattern recognises.
 */
import { type KnownPersonalData, maskPersonalData } from '../retrieval';

/** The masked reply, at most `maxChars` characters (cut at a word, ending in "…"); '' when nothing is left. */
export function maskedExample(body: string, known: KnownPersonalData | undefined, maxChars: number): string {
  const masked = maskPersonalData(body.replace(/\r\n/g, '\n'), known).trim();
  if (masked.length <= maxChars) return masked;
  const cut = masked.slice(0, maxChars - 2);
  const atWord = cut.replace(/(?<!\s)\s+\S*$/, '');
  // A text without a space near the end is cut where it is.
  return `${atWord.length >= cut.length / 2 ? atWord : cut} …`;
}

/**
 * The review page's sentence-by-sentence view of a draft: each sentence of the body, and for each
 * factual one what the grounding check found (src/drafting/grounding-check.ts) with links to the
 * sources it rests on. Pure: the route reads the stored claims and hands them in.
 */
import { draftSentences, GROUNDING_VERDICTS, type StoredClaim } from '../drafting';

export interface GroundingSource {
  id: string;
  /** The source view; null for what has none (the customer's mail, an id the draft was not given). */
  href: string | null;
  /** The customer's own mail rather than a context item. */
  customerMail: boolean;
}

export interface GroundingRow {
  text: string;
  /** A verdict of GROUNDING_VERDICTS, or `none` for a sentence that is no claim: the CSS class's tail. */
  css: string;
  verdict: string | null;
  cited: GroundingSource[];
  supportedBy: GroundingSource[];
}

export interface GroundingView {
  rows: GroundingRow[];
  supported: number;
  total: number;
}

export function groundingView(
  draft: { body: string; contextIds: readonly string[] },
  emailId: string,
  claims: readonly StoredClaim[],
  sourceHref: (sourceId: string) => string,
): GroundingView {
  const byIndex = new Map(claims.map((c) => [c.sentenceIndex, c]));
  const source = (id: string): GroundingSource => ({
    id,
    href: draft.contextIds.includes(id) ? sourceHref(id) : null,
    customerMail: id === emailId,
  });
  const rows = draftSentences(draft.body).map((text, i): GroundingRow => {
    const claim = byIndex.get(i);
    // A claim stored for another text (the body was cut differently) is not shown against this sentence.
    if (!claim || claim.sentence !== text.slice(0, claim.sentence.length))
      return { text, css: 'none', verdict: null, cited: [], supportedBy: [] };
    return {
      text,
      css: claim.verdict,
      verdict: claim.verdict,
      cited: claim.citedIds.map(source),
      supportedBy: claim.supportedBy.map(source),
    };
  });
  return {
    rows,
    supported: claims.filter((c) => c.verdict === GROUNDING_VERDICTS.supported).length,
    total: claims.length,
  };
}

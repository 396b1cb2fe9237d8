/**
 * The grounding of a draft as a never-automatic reason: a factual sentence its context does not
 * support, or one tied to a passage that does not support it, keeps the draft for a person whatever
 * its category's record says. Read from the stored claims (src/drafting/grounding-check.ts); the
 * draft's `unsupported_claims` flag says the same where no claims store is wired.
 */
import { DRAFT_FLAGS, GROUNDING_VERDICTS, type DraftClaimStore } from '../drafting';
import type { DraftRecord } from '../email';
import { NEVER_AUTOMATIC_REASONS } from './autonomy.contract';

const QUOTE_CHARS = 80;

export async function groundingReason(
  deps: { draftClaims?: Pick<DraftClaimStore, 'list'> },
  draft: Pick<DraftRecord, 'id' | 'flags'>,
): Promise<string | null> {
  const name = NEVER_AUTOMATIC_REASONS.unsupportedClaims;
  const claims = deps.draftClaims ? await deps.draftClaims.list(draft.id) : [];
  const unsupported = claims.filter((c) => c.verdict === GROUNDING_VERDICTS.unsupported);
  const misTied = claims.filter((c) => c.verdict === GROUNDING_VERDICTS.misTied);
  if (unsupported.length + misTied.length > 0) {
    const first = [...unsupported, ...misTied][0]!.sentence;
    const quote = first.length > QUOTE_CHARS ? `${first.slice(0, QUOTE_CHARS - 1)}…` : first;
    return `${name}: ${unsupported.length} unsupported and ${misTied.length} mis-tied of ${claims.length} factual sentences ("${quote}")`;
  }
  if (draft.flags.includes(DRAFT_FLAGS.unsupportedClaims))
    return `${name}: the grounding check found a factual sentence its context does not support`;
  return null;
}

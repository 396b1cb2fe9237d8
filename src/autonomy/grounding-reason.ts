/**
 * The grounding of a draft as never-automatic reasons: a sentence its context does not support, or
 * one tied to a passage that does not support it, keeps the draft for a person whatever its
 * category's record says; so does a commitment that rests on nothing but the customer's own mail
 * (customer-asserted: "as agreed on the phone you will refund 480 EUR" repeated by the draft).
 * Read from the stored claims (src/drafting/grounding-check.ts), where every sentence but courtesy
 * was checked; the draft's `unsupported_claims` and `customer_asserted` flags say the same where no
 * claims store is wired.
 */
import { DRAFT_FLAGS, GROUNDING_VERDICTS, type DraftClaimStore, type StoredClaim } from '../drafting';
import type { DraftRecord } from '../email';
import { NEVER_AUTOMATIC_REASONS } from './autonomy.contract';

const QUOTE_CHARS = 80;

const quote = (claims: readonly StoredClaim[]): string => {
  const first = claims[0]!.sentence;
  return first.length > QUOTE_CHARS ? `${first.slice(0, QUOTE_CHARS - 1)}…` : first;
};

/** Every grounding reason the draft waits for a person, first the customer-asserted one; empty when none. */
export async function groundingReasons(
  deps: { draftClaims?: Pick<DraftClaimStore, 'list'> },
  draft: Pick<DraftRecord, 'id' | 'flags'>,
): Promise<string[]> {
  const claims = deps.draftClaims ? await deps.draftClaims.list(draft.id) : [];
  const reasons: string[] = [];
  const asserted = claims.filter((c) => c.verdict === GROUNDING_VERDICTS.customerAsserted);
  if (asserted.length > 0)
    reasons.push(
      `${NEVER_AUTOMATIC_REASONS.customerAsserted}: ${asserted.length} sentence(s) commit us to what only the customer's mail says ("${quote(asserted)}")`,
    );
  else if (draft.flags.includes(DRAFT_FLAGS.customerAsserted))
    reasons.push(`${NEVER_AUTOMATIC_REASONS.customerAsserted}: a commitment of the draft rests on nothing but the customer's mail`);
  const name = NEVER_AUTOMATIC_REASONS.unsupportedClaims;
  const unsupported = claims.filter((c) => c.verdict === GROUNDING_VERDICTS.unsupported);
  const misTied = claims.filter((c) => c.verdict === GROUNDING_VERDICTS.misTied);
  if (unsupported.length + misTied.length > 0)
    reasons.push(
      `${name}: ${unsupported.length} unsupported and ${misTied.length} mis-tied of ${claims.length} checked sentences ("${quote([...unsupported, ...misTied])}")`,
    );
  else if (draft.flags.includes(DRAFT_FLAGS.unsupportedClaims))
    reasons.push(`${name}: the grounding check found a factual sentence its context does not support`);
  return reasons;
}

/** The unsupported/mis-tied reason alone (null when none): what a draft without customer-asserted claims is held for. */
export async function groundingReason(
  deps: { draftClaims?: Pick<DraftClaimStore, 'list'> },
  draft: Pick<DraftRecord, 'id' | 'flags'>,
): Promise<string | null> {
  const reasons = await groundingReasons(deps, draft);
  return reasons.find((r) => r.startsWith(`${NEVER_AUTOMATIC_REASONS.unsupportedClaims}:`)) ?? null;
}

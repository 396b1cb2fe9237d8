/**
 * The draft step's grounding check (src/drafting/grounding-check.ts): every sentence of a drafted
 * body but courtesy against the context it was written from, plus the customer's own mail, which
 * supports a restatement of what the customer asked but never a commitment of ours (an amount, a
 * date, a refund, a promise, "has been unlocked"): such a sentence is customer-asserted. A factual
 * sentence nothing supports, or one tied to a passage that does not support it, flags the draft
 * `unsupported_claims`; a customer-asserted one flags it `customer_asserted`. Either way it waits for
 * a person. The other sentences are checked too (a draft earned autonomy could send must have every
 * sentence backed); their verdicts are stored with the claims and keep autonomy off
 * (src/autonomy/grounding-reason.ts), but do not flag the draft for the reviewer.
 */
import type { EmailDeps } from '../email-deps';
import { checkGrounding, type GroundingResult, type DraftContextItem, type DraftResult, DRAFT_FLAGS } from '../../drafting';
import type { EmailRecord } from '../email-stores.port';

export async function draftGrounding(
  deps: Pick<EmailDeps, 'embedder'>,
  email: Pick<EmailRecord, 'id' | 'subject' | 'text'>,
  context: readonly DraftContextItem[],
  drafted: Pick<DraftResult, 'body' | 'claims'>,
): Promise<GroundingResult> {
  const items = [
    ...context.map((c) => ({ sourceId: c.sourceId, text: c.text, ...(c.title ? { title: c.title } : {}) })),
    { sourceId: email.id, text: email.text, title: email.subject, fromCustomer: true },
  ];
  return checkGrounding(drafted.body, drafted.claims ?? [], items, {
    everySentence: true,
    ...(deps.embedder ? { embedder: deps.embedder } : {}),
  });
}

/** `unsupported_claims` when a factual sentence is unsupported or mis-tied, `customer_asserted` when a commitment rests on the customer's word. */
export function groundingFlags(grounding: GroundingResult): string[] {
  return [
    ...(grounding.unsupported + grounding.misTied > 0 ? [DRAFT_FLAGS.unsupportedClaims] : []),
    ...(grounding.customerAsserted > 0 ? [DRAFT_FLAGS.customerAsserted] : []),
  ];
}

/** Kept beside the draft when the worker has a claims store; the check's verdict is on the draft's flags either way. */
export async function saveGrounding(
  deps: Pick<EmailDeps, 'draftClaims'>,
  draft: { id: string; emailId: string },
  grounding: GroundingResult,
): Promise<void> {
  await deps.draftClaims?.save(draft, grounding);
}

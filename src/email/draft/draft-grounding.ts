/**
 * The draft step's grounding check (src/drafting/grounding-check.ts): every factual sentence of a
 * drafted body against the context it was written from, plus the customer's own mail (restating
 * what the customer wrote is grounded). A sentence nothing supports, or one tied to a passage that
 * does not support it, flags the draft `unsupported_claims`: it waits for a person.
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
    { sourceId: email.id, text: email.text, title: email.subject },
  ];
  return checkGrounding(drafted.body, drafted.claims ?? [], items, deps.embedder ? { embedder: deps.embedder } : {});
}

/** `unsupported_claims` when a factual sentence is unsupported or mis-tied; nothing otherwise. */
export function groundingFlags(grounding: GroundingResult): string[] {
  return grounding.unsupported + grounding.misTied > 0 ? [DRAFT_FLAGS.unsupportedClaims] : [];
}

/** Kept beside the draft when the worker has a claims store; the check's verdict is on the draft's flags either way. */
export async function saveGrounding(
  deps: Pick<EmailDeps, 'draftClaims'>,
  draft: { id: string; emailId: string },
  grounding: GroundingResult,
): Promise<void> {
  await deps.draftClaims?.save(draft, grounding);
}

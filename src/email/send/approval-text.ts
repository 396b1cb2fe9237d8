/**
 * The text an approval sends. A person's edit is theirs and is sent as it stands (the Update
 * validator refuses one that names an internal source id). An approval without an edit — the CLI,
 * earned autonomy — of a draft stored with source notes by an earlier release takes the text the
 * review page offers for it: the draft without its internal source ids, cut by the same function
 * with the same ids (src/drafting/source-citations.ts), and recorded as that edit. So such a draft is
 * neither sent with an id nor stuck at the send step.
 */
import { separateCitations } from '../../drafting';
import type { DraftRecord } from '../email-stores.port';

export interface ApprovalText {
  /** The body to record as approved: the person's edit, the cleaned draft, or undefined (the draft as it stands). */
  body: string | undefined;
  /** The ids taken out of an unedited draft (empty when nothing was). */
  removedIds: string[];
}

export function approvalText(draft: Pick<DraftRecord, 'body' | 'emailId' | 'contextIds'>, edited: string | undefined): ApprovalText {
  if (edited !== undefined) return { body: edited, removedIds: [] };
  const cleaned = separateCitations(draft.body, [draft.emailId, ...draft.contextIds]);
  return cleaned.removedIds.length === 0 ? { body: undefined, removedIds: [] } : { body: cleaned.body, removedIds: cleaned.removedIds };
}

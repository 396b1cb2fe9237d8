import { DRAFT_OUTCOME, type DraftOutcome } from './drafting.contract';
import { wordEditDistance } from './edit-distance';

/** Under this share of changed words an approved edit is light, at or above it heavy (the field's ~40 %). */
export const LIGHT_EDIT_LIMIT = 0.4;

/** Words as the edit distance counts them: runs of whitespace separate words. */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/**
 * The share of a draft a person changed: word edit distance / max(words of the draft, words of
 * what was approved), 0 when both are empty. 0 means unchanged, 1 means every word replaced
 * (or all of it deleted, or a reply written over an empty draft).
 */
export function changedShare(editDistance: number, before: string, after: string): number {
  const longer = Math.max(wordCount(before), wordCount(after));
  return longer === 0 ? 0 : Math.min(1, editDistance / longer);
}

export interface ApprovalMeasure {
  outcome: DraftOutcome;
  editDistance: number;
  changedShare: number;
}

/**
 * What an approval says about the draft. `editedBody` undefined: approved as drafted. A draft a
 * person wrote (drafter `human`) is `written_by_person` whatever was edited.
 */
export function classifyApproval(draft: { body: string; drafter: string }, editedBody: string | undefined): ApprovalMeasure {
  const after = editedBody ?? draft.body;
  const editDistance = editedBody === undefined ? 0 : wordEditDistance(draft.body, after);
  const share = changedShare(editDistance, draft.body, after);
  if (draft.drafter === 'human') return { outcome: DRAFT_OUTCOME.writtenByPerson, editDistance, changedShare: share };
  const outcome =
    editDistance === 0 ? DRAFT_OUTCOME.approvedUnchanged : share < LIGHT_EDIT_LIMIT ? DRAFT_OUTCOME.lightEdit : DRAFT_OUTCOME.heavyEdit;
  return { outcome, editDistance, changedShare: share };
}

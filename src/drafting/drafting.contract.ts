/**
 * Names the drafting feature shares with the others: what the grounding check says of each factual
 * sentence of a draft (stored in `draft_claims.verdict`, shown by the review inbox, read by earned
 * autonomy). Imports nothing at run time.
 */
export const GROUNDING_VERDICTS = {
  /** The passage(s) it rests on contain its key facts and say what it says. */
  supported: 'supported',
  /** Nothing in the draft's context supports it: an invented fact or promise. */
  unsupported: 'unsupported',
  /** Tied to passages that do not support it, though another context item does: a wrong citation. */
  misTied: 'mis_tied',
} as const;
export type GroundingVerdict = (typeof GROUNDING_VERDICTS)[keyof typeof GROUNDING_VERDICTS];

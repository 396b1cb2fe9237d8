import type { GroundingVerdict } from './drafting.contract';
import type { GroundingResult } from './grounding-check';

/** One factual sentence of a stored draft with what the grounding check found. */
export interface StoredClaim {
  sentenceIndex: number;
  sentence: string;
  /** The ids its drafter tied it to. */
  citedIds: string[];
  verdict: GroundingVerdict;
  /** The context items that support it (for a mis-tied sentence: the ones its drafter did not name). */
  supportedBy: string[];
  /** `embedder` or `words`: what judged the meaning. */
  checkedBy: string;
}

/** The claims of each draft, as the draft step checked them. */
export interface DraftClaimStore {
  /** Replaces the draft's claims with the check's factual sentences; a decided draft keeps its own. */
  save(draft: { id: string; emailId: string }, result: GroundingResult): Promise<void>;
  /** In sentence order; empty for a draft with no factual sentence, or written before claims were kept. */
  list(draftId: string): Promise<StoredClaim[]>;
}

/** A reviewer holding a case while they work on it. */
export interface CaseClaim {
  by: string;
  until: Date;
}

export interface CaseClaims {
  /**
   * Claims the case for `seconds` unless another reviewer holds it: atomic, one of two reviewers
   * claiming at once wins. The holder's own claim is extended. `holder` is whoever holds it afterwards.
   */
  claim(caseId: string, by: string, seconds: number): Promise<{ claimed: boolean; holder: CaseClaim | null; tookOverFrom: string | null }>;
  /** Ends `by`'s claim (someone else's stays). */
  release(caseId: string, by: string): Promise<boolean>;
  /** The claim in force, or null (none, or expired). */
  current(caseId: string): Promise<CaseClaim | null>;
}

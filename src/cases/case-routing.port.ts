/** Who a case is assigned to, and who or what assigned it (`rule:<name>` or `person:<user>`). */
export interface CaseAssignment {
  team: string | null;
  owner: string | null;
  routedBy: string | null;
}

/** What the routing rules look at in a case. */
export interface CaseRoutingFacts extends CaseAssignment {
  id: string;
  mailboxId: string;
  correspondent: string;
  priority: string;
}

export interface CaseRouting {
  /** The case as the rules see it; null when there is no such case. */
  facts(caseId: string): Promise<CaseRoutingFacts | null>;
  /**
   * Writes a rule's assignment, unless a person assigned the case meanwhile (checked under the
   * row's lock). A change is one `case_assigned` event; the same assignment again writes nothing.
   */
  applyRule(
    caseId: string,
    rule: { name: string; team: string | null; owner: string | null },
  ): Promise<{ applied: boolean; current: CaseAssignment }>;
  /**
   * A person assigns the case (`undefined` leaves a field as it is, `null` clears it); the rules
   * leave it alone from then on. The owner must be an enabled inbox user.
   */
  assignCase(caseId: string, change: { owner?: string | null; team?: string | null }, by: string): Promise<CaseAssignment>;
}

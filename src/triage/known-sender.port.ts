/**
 * Whether the team knows a sender: it wrote before (mail that was not held as spam) or the team
 * sent it a reply. A known sender's mail is never held by a spam score alone (src/triage/triage.ts);
 * the score flags it for review instead.
 */
export interface KnownSenders {
  /** Why the address is known (`2 earlier emails`, `the team replied to it`), or null; `exceptEmailId` is the mail being triaged. */
  knownSender(address: string, exceptEmailId: string): Promise<string | null>;
}

import { createHash } from 'node:crypto';

/** The data subject of an export or erasure: one address, as the store compares it. */
export function subjectAddress(input: string): string {
  const a = input.trim().toLowerCase();
  // One address, no display name: a typo must not widen or empty the search.
  if (!/^[^\s@<>,;"]+@[^\s",;<>@][^\s",.;<>@]*\.[^\s",;<>@]+$/.test(a) || a.length > 320) {
    throw new TypeError(`not an e-mail address: ${JSON.stringify(input.slice(0, 80))}`);
  }
  return a;
}

/** The salted hash that stands for the address in the audit trail, the access log and the progress table. */
export function addressHash(salt: string, address: string): string {
  return createHash('sha256').update(`${salt}\u0000${address}`).digest('hex');
}

/** The ids of the emails of one correspondent, and everything hanging off them. */
export interface SubjectIds {
  /** Emails they sent, or that we answered to them (workflow id = email id). */
  emailIds: string[];
  /** Index entries of our sent replies to them (`<email id>:draft:<n>:sent`). */
  sentIds: string[];
  /** Their cases (workflow id = case id). */
  caseIds: string[];
  /** Their names as stored (display names): scrubbed from the text the audit trail keeps. */
  names: string[];
}

/** Union of two id sets (a resumed erasure: what was found before, and what is found now). */
export function mergeIds(a: SubjectIds, b: SubjectIds): SubjectIds {
  const u = (x: string[], y: string[]) => [...new Set([...x, ...y])].sort();
  return {
    emailIds: u(a.emailIds, b.emailIds),
    sentIds: u(a.sentIds, b.sentIds),
    caseIds: u(a.caseIds, b.caseIds),
    names: u(a.names, b.names),
  };
}

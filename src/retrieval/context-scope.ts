import type { ContextScope, IndexableEmail, DraftContextItem } from './vector-index.port';
import { maskPersonalData } from './mask-personal-data';
import { organisationDomain } from './organisation';

export interface ContextPolicy {
  /** Colleagues at the same (non-public) mail domain count as the same correspondent. */
  includeOrganisation: boolean;
  reuseReplies: 'masked' | 'off';
}

export const DEFAULT_CONTEXT_POLICY: ContextPolicy = { includeOrganisation: true, reuseReplies: 'masked' };

export function normaliseAddress(address: string): string {
  return address.trim().toLowerCase();
}

/** The scope of a retrieval for `email` (its `fromAddress` is the address the reply goes to). */
export function contextScope(email: IndexableEmail, policy: ContextPolicy = DEFAULT_CONTEXT_POLICY): ContextScope {
  const correspondent = normaliseAddress(email.fromAddress);
  return {
    account: email.account ?? '',
    mailbox: email.mailbox,
    correspondent,
    organisation: policy.includeOrganisation ? organisationDomain(correspondent) : null,
    reuseReplies: policy.reuseReplies,
  };
}

/**
 * Whose mail an index entry is: the sender of inbound mail, the recipient of our replies;
 * knowledge belongs to no one. Stored with every entry so retrieval can filter on it.
 */
export function entryCorrespondent(email: IndexableEmail): { correspondent: string; organisation: string | null } {
  if (email.direction === 'knowledge') return { correspondent: '', organisation: null };
  const address = normaliseAddress(email.direction === 'out' ? (email.toAddresses?.[0] ?? '') : email.fromAddress);
  return { correspondent: address, organisation: organisationDomain(address) };
}

/** True when an entry of this correspondent may be shown in full in the scope. */
export function sameCorrespondent(scope: ContextScope, correspondent: string, organisation: string | null): boolean {
  if (!correspondent) return false;
  if (correspondent === scope.correspondent) return true;
  return scope.organisation !== null && organisation === scope.organisation;
}

/** Our reply to another correspondent as context: masked, with the title masked too. */
export function ownReplyItem(sourceId: string, text: string, title?: string): DraftContextItem {
  return { sourceId, kind: 'own_reply', text: maskPersonalData(text), ...(title ? { title: maskPersonalData(title) } : {}) };
}

/** `knowledge:<relative path>#<passage n>`, n counting from 1. */
export function knowledgeSourceId(fileId: string, idx: number): string {
  return `${fileId}#${idx + 1}`;
}

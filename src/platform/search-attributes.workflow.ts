/** Typed keys of the email workflow's search attributes (names and types from the contract). */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributeUpdatePair } from '@temporalio/common';
import { SEARCH_ATTRIBUTES } from '../platform/contract';

const type = { Keyword: SearchAttributeType.KEYWORD, Bool: SearchAttributeType.BOOL, Int: SearchAttributeType.INT } as const;

export const EMAIL_STATUS = defineSearchAttributeKey('EmailStatus', type[SEARCH_ATTRIBUTES.EmailStatus]);
export const EMAIL_PRIORITY = defineSearchAttributeKey('EmailPriority', type[SEARCH_ATTRIBUTES.EmailPriority]);
export const MAILBOX = defineSearchAttributeKey('Mailbox', type[SEARCH_ATTRIBUTES.Mailbox]);
export const NEEDS_HUMAN = defineSearchAttributeKey('NeedsHuman', type[SEARCH_ATTRIBUTES.NeedsHuman]);
export const DRAFT_VERSION = defineSearchAttributeKey('DraftVersion', type[SEARCH_ATTRIBUTES.DraftVersion]);
export const TRIAGE_CLASS = defineSearchAttributeKey('TriageClass', type[SEARCH_ATTRIBUTES.TriageClass]);
export const CATEGORY = defineSearchAttributeKey('Category', type[SEARCH_ATTRIBUTES.Category]);

export const CASE_STATUS_KEY = defineSearchAttributeKey('CaseStatus', type[SEARCH_ATTRIBUTES.CaseStatus]);
export const CASE_OWNER = defineSearchAttributeKey('CaseOwner', type[SEARCH_ATTRIBUTES.CaseOwner]);

export type EmailSearchUpdate = SearchAttributeUpdatePair[];

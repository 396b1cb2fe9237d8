/**
 * Search attributes of the email workflow, written only when a value changes. Every upsert is a
 * history event and a visibility write on the server; the short pipeline statuses (fetched,
 * parsed, indexed) are not upserted at all: they last milliseconds, and MariaDB and the audit log
 * keep them. What operators filter on (waiting for a person, sent, failed, ignored) always is.
 */
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { STATUS, type EmailStatus } from './email-status';
import {
  CATEGORY,
  DRAFT_VERSION,
  EMAIL_PRIORITY,
  EMAIL_STATUS,
  MAILBOX,
  NEEDS_HUMAN,
  TRIAGE_CLASS,
} from '../platform/search-attributes.workflow';

/** Statuses the pipeline passes through on its way to a decision or an end. */
const PASSING: readonly EmailStatus[] = Object.freeze([STATUS.fetched, STATUS.parsed, STATUS.indexed, STATUS.drafted] as const);

export interface EmailVisibility {
  status?: EmailStatus;
  needsHuman?: boolean;
  priority?: string;
  mailbox?: string;
  draftVersion?: number;
  category?: string;
  triageClass?: string;
}

type Keys = Required<{ [K in keyof EmailVisibility]: SearchAttributeUpdatePair['key'] }>;
const KEYS: Keys = {
  status: EMAIL_STATUS,
  needsHuman: NEEDS_HUMAN,
  priority: EMAIL_PRIORITY,
  mailbox: MAILBOX,
  draftVersion: DRAFT_VERSION,
  category: CATEGORY,
  triageClass: TRIAGE_CLASS,
};

/**
 * Keeps the wanted values and upserts the changed ones when the email reaches a status worth
 * showing. Values given at start (the starter sets priority and mailbox) count as written.
 */
export function createVisibility(): { want(values: EmailVisibility): void; flush(status: EmailStatus, final?: boolean): void } {
  const written = new Map<string, unknown>();
  for (const pair of workflowInfo().typedSearchAttributes.getAll()) written.set(pair.key.name, pair.value);
  const wanted = new Map<string, { key: SearchAttributeUpdatePair['key']; value: unknown }>();
  return {
    want(values) {
      for (const [name, value] of Object.entries(values) as Array<[keyof EmailVisibility, unknown]>) {
        if (value !== undefined) wanted.set(KEYS[name].name, { key: KEYS[name], value });
      }
    },
    /** `final`: the run ends in this status, so it is shown even when it is one the pipeline passes. */
    flush(status, final = false) {
      if (PASSING.includes(status) && !final) return;
      const changes = [...wanted.values()].filter(({ key, value }) => written.get(key.name) !== value);
      if (changes.length === 0) return;
      upsertSearchAttributes(changes as SearchAttributeUpdatePair[]);
      for (const { key, value } of changes) written.set(key.name, value);
    },
  };
}

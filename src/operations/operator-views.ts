/**
 * The Web UI views and `temporal workflow list --query` filters operators work from, built on the
 * email workflow's search attributes (src/platform/contract.ts SEARCH_ATTRIBUTES). The Web UI keeps saved
 * views in the browser (local storage), not on the server, so they are offered as links and
 * queries to save once per browser ("Save as View"); docs/operating.md lists them.
 */
import { STATUS } from '../email';

export interface OperatorView {
  id: string;
  name: string;
  query: string;
  /** What an operator does with the emails it lists. */
  purpose: string;
}

const running = 'ExecutionStatus="Running"';

export const OPERATOR_VIEWS: readonly OperatorView[] = [
  {
    id: 'waiting-for-a-person',
    name: 'Waiting for a person',
    query: `NeedsHuman=true AND ${running}`,
    purpose: 'every email a person must act on: approve or reject a draft, write a reply, settle a send in doubt',
  },
  {
    id: 'critical-waiting',
    name: 'Critical waiting',
    query: `NeedsHuman=true AND EmailPriority="critical" AND ${running}`,
    purpose: 'the same, critical mail only: first in the morning',
  },
  {
    id: 'manual-review',
    name: 'Manual review',
    query: `EmailStatus="${STATUS.manualReview}" AND ${running}`,
    purpose: 'no usable draft (LLM timeout, invalid output, draft limit): a person writes the reply',
  },
  {
    id: 'sends-in-doubt',
    name: 'Sends in doubt',
    query: `EmailStatus="${STATUS.approved}" AND NeedsHuman=true AND ${running}`,
    purpose: 'the SMTP server may have the reply: check its log, then resend with force or mark sent',
  },
  {
    id: 'approved-not-sent',
    name: 'Approved, not sent yet',
    query: `EmailStatus="${STATUS.approved}" AND NeedsHuman=false AND ${running}`,
    purpose: 'sending, or waiting for the next send round after SMTP failures (a batch resend is safe here)',
  },
  {
    id: STATUS.failed,
    name: 'Failed',
    query: `EmailStatus="${STATUS.failed}"`,
    purpose: 'processing stopped (dead step, permanent error): see `email-rag dlq list`',
  },
];

/** The Web UI's workflow list filtered by `query` (a link that works without saving a view). */
export function workflowListUrl(uiBaseUrl: string, namespace: string, query?: string): string {
  const base = `${uiBaseUrl.replace(/(?<!\/)\/+$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows`;
  return query ? `${base}?query=${encodeURIComponent(query)}` : base;
}

/** Columns worth adding to the Web UI's workflow list (its column picker lists custom search attributes). */
export const SUGGESTED_COLUMNS = [
  'Status',
  'Workflow ID',
  'EmailStatus',
  'EmailPriority',
  'NeedsHuman',
  'DraftVersion',
  'Category',
  'Start',
] as const;

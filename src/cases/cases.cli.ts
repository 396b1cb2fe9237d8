import { readFileSync } from 'node:fs';
import { createCaseReplies } from './case-replies';
import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import { createMariaDbCaseStore } from './case-store.mariadb';
import { query, type Pool } from '../platform/pool.mariadb';
import { createTemporalCaseSignals } from './case-signals.temporal';
import { createTemporalDecisions } from '../email/index.adapters';
import { NEEDS_PERSON_STATUSES } from '../email';
import type { Config } from '../platform/config';
import { CASE_STATUSES, type CaseStatus } from './case-status';
import type { CaseReplyResult } from './case-replies.port';
import type { CaseRow } from './cases.port';
import { CliError, connectDatabase, connectTemporal } from '../platform/cli-context';
import { byOrActor, groupUsage, JSON_OPTION, text, type CliCommand } from '../platform/cli-command';

export interface CaseMailLine {
  emailId: string;
  subject: string;
  status: string;
  receivedAt: string;
  draftId: string | null;
}
export interface CaseDetail {
  case: CaseRow;
  mails: CaseMailLine[];
  events: Array<{ at: string; type: string; actor: string | null; message: string }>;
}

async function withPool<T>(config: Config, fn: (pool: Pool) => Promise<T>): Promise<T> {
  const pool = await connectDatabase(config);
  try {
    return await fn(pool);
  } finally {
    await pool.end();
  }
}

export function casesList(config: Config, filter: { status?: string; mailbox?: string; correspondent?: string }): Promise<CaseRow[]> {
  if (filter.status && !CASE_STATUSES.includes(filter.status as CaseStatus))
    throw new CliError(`unknown case status "${filter.status}" (one of ${CASE_STATUSES.join(', ')})`, 2);
  return withPool(config, (pool) =>
    createMariaDbCaseStore(pool).list({
      ...(filter.status ? { status: filter.status as CaseStatus } : {}),
      ...(filter.mailbox ? { mailboxId: filter.mailbox } : {}),
      ...(filter.correspondent ? { correspondent: filter.correspondent } : {}),
      limit: 200,
    }),
  );
}

async function detail(pool: Pool, caseId: string): Promise<CaseDetail> {
  const row = await createMariaDbCaseStore(pool).get(caseId);
  if (!row) throw new CliError(`no case ${caseId} (email-rag cases list)`, 2);
  const mails = await query<Array<{ id: string; subject: string | null; status: string; created_at: Date; draft_id: string | null }>>(
    pool,
    'reading the mails of a case',
    `SELECT e.id, e.subject, e.status, e.created_at, (SELECT d.id FROM drafts d WHERE d.email_id = e.id ORDER BY d.version DESC LIMIT 1) AS draft_id
       FROM emails e WHERE e.case_id = ? ORDER BY e.created_at`,
    [caseId],
  );
  const events = await query<Array<{ created_at: Date; event_type: string; actor: string | null; message: string }>>(
    pool,
    'reading the history of a case',
    'SELECT created_at, event_type, actor, message FROM case_events WHERE case_id = ? ORDER BY id DESC LIMIT 100',
    [caseId],
  );
  return {
    case: row,
    mails: mails.map((m) => ({
      emailId: m.id,
      subject: m.subject ?? '',
      status: m.status,
      receivedAt: new Date(m.created_at).toISOString(),
      draftId: m.draft_id,
    })),
    events: events.map((e) => ({ at: new Date(e.created_at).toISOString(), type: e.event_type, actor: e.actor, message: e.message })),
  };
}

export function casesShow(config: Config, caseId: string): Promise<CaseDetail> {
  return withPool(config, (pool) => detail(pool, caseId));
}

/**
 * Answers every mail of the case that waits for approval in one reply: the oldest is the lead
 * (its current draft, or the body given, is sent); the others are held for it and end as sent.
 */
export async function casesAnswer(config: Config, caseId: string, opts: { by: string; bodyFile?: string }): Promise<CaseReplyResult> {
  const body = opts.bodyFile ? readFileSync(opts.bodyFile, 'utf8') : undefined;
  return withPool(config, async (pool) => {
    const d = await detail(pool, caseId);
    const waiting = d.mails.filter((m) => (NEEDS_PERSON_STATUSES as readonly string[]).includes(m.status) && m.draftId);
    const [lead, ...others] = waiting;
    if (!lead) throw new CliError(`case ${caseId} has no mail waiting for approval`, 2);
    const temporal = await connectTemporal(config);
    try {
      const replies = createCaseReplies({
        pool,
        decisions: createTemporalDecisions(temporal.client),
        signals: createTemporalCaseSignals(temporal.client, config.temporal.taskQueue),
        audit: createMariaDbAuditLog(pool),
      });
      return await replies.answer({
        caseId,
        leadEmailId: lead.emailId,
        leadDraftId: lead.draftId as string,
        ...(body !== undefined ? { body } : {}),
        covers: others.map((m) => ({ emailId: m.emailId, draftId: m.draftId as string })),
        by: opts.by,
      });
    } finally {
      await temporal.close();
    }
  });
}

export function formatCases(rows: CaseRow[]): string {
  if (rows.length === 0) return 'no cases';
  return rows
    .map(
      (c) =>
        `${c.id}\t${c.status}\t${c.priority}\t${c.mailboxId}\t${c.correspondent}\t${c.openEmails}/${c.emailCount} open\t` +
        `owner ${c.owner ?? '-'}${c.team ? ` (${c.team})` : ''}\tdue ${c.dueAt ?? '-'}\t${c.subject.slice(0, 60)}`,
    )
    .join('\n');
}

export function formatCase(d: CaseDetail): string {
  const c = d.case;
  return [
    `${c.id}  ${c.status}  priority ${c.priority}  mailbox ${c.mailboxId}`,
    `correspondent ${c.correspondent}; owner ${c.owner ?? '-'}${c.team ? `, team ${c.team}` : ''}`,
    `opened ${c.openedAt}; waiting since ${c.waitingSince ?? '-'}; due ${c.dueAt ?? '-'}; last reply ${c.lastReplyAt ?? '-'}`,
    '',
    'mails:',
    ...d.mails.map((m) => `  ${m.emailId}\t${m.status}\t${m.receivedAt}\t${m.draftId ?? '-'}\t${m.subject.slice(0, 70)}`),
    '',
    'history (newest first):',
    ...d.events.map((e) => `  ${e.at}  ${e.type}${e.actor ? ` by ${e.actor}` : ''}: ${e.message}`),
  ].join('\n');
}

export function formatCaseReply(r: CaseReplyResult): string {
  return [
    r.accepted ? `accepted: ${r.message}` : `refused: ${r.message}`,
    ...r.covered.map((c) => `  ${c.emailId}\t${c.held ? 'held for the reply' : `refused: ${c.message}`}`),
  ].join('\n');
}

const oneCase = (rest: string[]) => rest.length === 1 && !!rest[0];

export const casesCommands: CliCommand[] = [
  {
    name: 'cases list',
    usage: `cases list [--status open|waiting_for_customer|closed] [--mailbox ID] [--correspondent ADDR] [--json]
                                        cases: a correspondent's open work, newest first`,
    options: { ...JSON_OPTION, status: { type: 'string' }, mailbox: { type: 'string' }, correspondent: { type: 'string' } },
    accepts: (rest) => rest.length === 0,
    run: (ctx, { values }) =>
      casesList(ctx.config(), {
        status: text(values, 'status'),
        mailbox: text(values, 'mailbox'),
        correspondent: text(values, 'correspondent'),
      }),
    format: formatCases,
  } satisfies CliCommand<CaseRow[]>,
  {
    name: 'cases show',
    usage: 'cases show CASE [--json]                a case: its mails (status, current draft) and its history',
    options: JSON_OPTION,
    accepts: oneCase,
    run: (ctx, { positionals }) => casesShow(ctx.config(), positionals[0]!),
    format: formatCase,
  } satisfies CliCommand<CaseDetail>,
  {
    name: 'cases answer',
    usage: `cases answer CASE --by NAME [--body-file F]
                                        answer every mail of the case waiting for approval in one reply
                                        (the oldest one's draft, or F); exit 5 if refused`,
    options: { ...JSON_OPTION, by: { type: 'string' }, 'body-file': { type: 'string' } },
    accepts: oneCase,
    run(ctx, { positionals, values }) {
      const bodyFile = text(values, 'body-file');
      return casesAnswer(ctx.config(), positionals[0]!, { by: byOrActor(values), ...(bodyFile ? { bodyFile } : {}) });
    },
    format: formatCaseReply,
    exitCode: (r) => (r.accepted ? undefined : 5),
  } satisfies CliCommand<CaseReplyResult>,
  groupUsage('cases', 'cases list | cases show CASE | cases answer CASE --by NAME'),
];

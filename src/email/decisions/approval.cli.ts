import { readFileSync } from 'node:fs';
import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { createTemporalDecisions } from './decisions.temporal';
import type { Config } from '../../platform/config';
import { DECISIONS, type DecisionName } from '../email.contract';
import { WAITING_KINDS } from '../email-status';
import { errorMessage } from '../../platform/errors';
import { type DecisionInput, type DecisionResult, type EmailWorkflowState, stateQuery } from '../email.workflow';
import { CliError, connectTemporal } from '../../platform/cli-context';
import { answeredElsewhereText } from './decision-rules.workflow';
import { byOrActor, text, type CliCommand } from '../../platform/cli-command';

/** Exit code of a decision the workflow refused (stale draft, second decision, …). */
export const REFUSED_EXIT = 5;

async function withEmail<T>(
  config: Config,
  workflowId: string,
  fn: (handle: WorkflowHandle, state: EmailWorkflowState) => Promise<T>,
): Promise<T> {
  const temporal = await connectTemporal(config);
  try {
    const handle = temporal.client.workflow.getHandle(workflowId);
    let state: EmailWorkflowState;
    try {
      state = await handle.query(stateQuery);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError)
        throw new CliError(`no email workflow ${workflowId} (list waiting ones with: email-rag drafts)`);
      throw new CliError(`cannot read ${workflowId}: ${errorMessage(err)}`);
    }
    return await fn(handle, state);
  } finally {
    await temporal.close();
  }
}

/**
 * Sends a decision as an Update and returns the workflow's answer. Runs started before decisions
 * were Updates (their state has no `waitingFor`) get the same-named signal.
 */
async function decide<N extends DecisionName>(
  handle: WorkflowHandle,
  state: EmailWorkflowState,
  name: N,
  input: DecisionInput[N],
): Promise<DecisionResult> {
  if (!('waitingFor' in state)) {
    await handle.signal(name, input);
    return {
      draftId: String((input as { draftId?: string }).draftId ?? ''),
      status: 'signalled',
      message: `${name} signalled (workflow started before decisions were Updates)`,
    };
  }
  // Through the same adapter as the review inbox: a draft named with --draft that the workflow
  // has not taken in yet is waited for instead of refused.
  const outcome = await createTemporalDecisions({ workflow: handle.client }).decide(handle.workflowId, name, input);
  if (outcome.ok) return outcome.result;
  throw new CliError(outcome.message, outcome.refused ? REFUSED_EXIT : 1);
}

function readBody(bodyFile: string | undefined): string | undefined {
  if (!bodyFile) return undefined;
  let body: string;
  try {
    body = readFileSync(bodyFile, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read --body-file ${bodyFile}: ${(err as Error).message}`, 2);
  }
  if (body.trim() === '') throw new CliError(`--body-file ${bodyFile} is empty`, 2);
  return body;
}

/**
 * The draft a decision names. `--draft` pins it (a version number or a draft id). Without it the
 * current draft is taken only when it is the email's first: once a newer draft replaced the one a
 * reviewer may have read, they must say which one they mean.
 */
function pickDraft(workflowId: string, state: EmailWorkflowState, pinned: string | undefined): string {
  const w = state.waitingFor;
  if (state.answeredElsewhere)
    throw new CliError(
      `${workflowId}: ${answeredElsewhereText(state.answeredElsewhere)}; its draft was withdrawn and nothing is sent`,
      REFUSED_EXIT,
    );
  if (pinned) return /^\d+$/.test(pinned) ? `${workflowId}:draft:${pinned}` : pinned;
  if (!w || (w.kind !== WAITING_KINDS.approval && w.kind !== WAITING_KINDS.manualReview)) {
    const spam = state.decision?.spam ? `; it was marked as spam by ${state.decision.by}` : '';
    throw new CliError(`${workflowId} waits for no decision on a draft (status ${state.status}${spam})`, spam ? REFUSED_EXIT : 1);
  }
  if (w.kind === WAITING_KINDS.approval && state.drafts > 1) {
    throw new CliError(
      `${workflowId} has had ${state.drafts} drafts; the current one is version ${w.version} (${w.draftId}). ` +
        `Read it (email-rag drafts) and name it: --draft ${w.version}`,
      2,
    );
  }
  return w.draftId;
}

function preview(state: EmailWorkflowState, draftId: string): string {
  const d = state.draft;
  if (!d || d.draftId !== draftId) return `draft ${draftId}`;
  const lines = d.body
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .slice(0, 3);
  return [`draft ${d.draftId} (version ${d.version}) to ${d.to.address}: ${d.subject}`, ...lines.map((l) => `  | ${l.slice(0, 100)}`)].join(
    '\n',
  );
}

export async function approve(
  config: Config,
  workflowId: string,
  opts: { by: string; bodyFile?: string; draft?: string },
): Promise<string> {
  const body = readBody(opts.bodyFile);
  return withEmail(config, workflowId, async (handle, state) => {
    const draftId =
      'waitingFor' in state
        ? pickDraft(workflowId, state, opts.draft)
        : ((state as { draft: { draftId: string } | null }).draft?.draftId ?? '');
    const shown = preview(state, draftId);
    const r = await decide(handle, state, DECISIONS.approve, { draftId, by: opts.by, ...(body !== undefined ? { body } : {}) });
    return `${shown}\napproved as ${opts.by}${body !== undefined ? ' with an edited body' : ''}: ${r.message} (status ${r.status})`;
  });
}

/** Rejects the draft; with `spam` the mail is marked as spam (nothing sent, the spam filter learns it; the reason is optional). */
export async function reject(
  config: Config,
  workflowId: string,
  opts: { by: string; reason?: string; draft?: string; spam?: boolean },
): Promise<string> {
  return withEmail(config, workflowId, async (handle, state) => {
    const draftId =
      'waitingFor' in state
        ? pickDraft(workflowId, state, opts.draft)
        : ((state as { draft: { draftId: string } | null }).draft?.draftId ?? '');
    const input = {
      draftId,
      by: opts.by,
      ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
      ...(opts.spam ? { spam: true } : {}),
    };
    const r = await decide(handle, state, DECISIONS.reject, input);
    if (opts.spam) return `marked ${draftId} as spam as ${opts.by}: ${r.message} (status ${r.status})`;
    return `rejected ${draftId} as ${opts.by}: ${opts.reason} (status ${r.status})`;
  });
}

export async function redraft(config: Config, workflowId: string, opts: { by: string; draft?: string; reason?: string }): Promise<string> {
  return withEmail(config, workflowId, async (handle, state) => {
    const draftId = pickDraftForRedraft(workflowId, state, opts.draft);
    const r = await decide(handle, state, DECISIONS.redraft, { draftId, by: opts.by, ...(opts.reason ? { reason: opts.reason } : {}) });
    return `${workflowId}: ${r.message}`;
  });
}

function pickDraftForRedraft(workflowId: string, state: EmailWorkflowState, pinned: string | undefined): string {
  if (pinned) return pickDraft(workflowId, state, pinned);
  // Asking for another draft is not a decision on the current one: it need not be pinned.
  const w = state.waitingFor;
  return w && 'draftId' in w ? w.draftId : '';
}

/** The draft whose send waits (in doubt or for its next round), as the `state` query names it. */
function sendDraftId(state: EmailWorkflowState): string | undefined {
  const w = state.waitingFor;
  return w && (w.kind === WAITING_KINDS.sendInDoubt || w.kind === WAITING_KINDS.sendRound) ? w.draftId : undefined;
}

/** `resend` (next round now) or, for a send in doubt, `resend --force` after a person checked it did not arrive. */
export async function resend(config: Config, workflowId: string, opts: { by: string; force: boolean }): Promise<string> {
  return withEmail(config, workflowId, async (handle, state) => {
    const draftId = sendDraftId(state);
    const r = await decide(handle, state, DECISIONS.resend, {
      by: opts.by,
      ...(opts.force ? { force: true } : {}),
      ...(draftId ? { draftId } : {}),
    });
    return `${workflowId}: ${r.message}`;
  });
}

/** A person checked that the customer got a reply whose send was in doubt. */
export async function markSent(config: Config, workflowId: string, opts: { by: string; note?: string }): Promise<string> {
  return withEmail(config, workflowId, async (handle, state) => {
    const draftId = sendDraftId(state) ?? '';
    const r = await decide(handle, state, DECISIONS.markSent, { draftId, by: opts.by, ...(opts.note ? { note: opts.note } : {}) });
    return `${workflowId}: ${r.message}`;
  });
}

const approveCommand: CliCommand<string> = {
  name: 'approve',
  usage: `approve <workflowId> [--draft N|ID] [--body-file F] [--by NAME]
                                        approve the draft you read (shown first); --draft pins it`,
  options: { 'body-file': { type: 'string' }, by: { type: 'string' }, draft: { type: 'string' } },
  run(ctx, { positionals, values }) {
    const draft = text(values, 'draft');
    const opts = { by: byOrActor(values), bodyFile: text(values, 'body-file'), ...(draft ? { draft } : {}) };
    return approve(ctx.config(), ctx.one(positionals, 'workflow id'), opts);
  },
};

const rejectCommand: CliCommand<string> = {
  name: 'reject',
  usage: `reject <workflowId> --reason R [--draft N|ID] [--by NAME]
  reject <workflowId> --spam [--reason R] [--draft N|ID] [--by NAME]   (marked as spam: nothing sent, the spam filter learns it)`,
  options: { reason: { type: 'string' }, by: { type: 'string' }, draft: { type: 'string' }, spam: { type: 'boolean', default: false } },
  run(ctx, { positionals, values }) {
    const reason = text(values, 'reason');
    const spam = values.spam === true;
    if (!spam && (reason === undefined || reason.trim() === '')) throw new CliError('reject needs --reason "…" (or --spam)', 2);
    const draft = text(values, 'draft');
    const opts = { by: byOrActor(values), ...(reason !== undefined ? { reason } : {}), ...(draft !== undefined ? { draft } : {}), spam };
    return reject(ctx.config(), ctx.one(positionals, 'workflow id'), opts);
  },
};

const redraftCommand: CliCommand<string> = {
  name: 'redraft',
  usage: `redraft <workflowId> [--reason R] [--by NAME]
                                        ask for a new draft`,
  options: { reason: { type: 'string' }, by: { type: 'string' }, draft: { type: 'string' } },
  run(ctx, { positionals, values }) {
    const [reason, draft] = [text(values, 'reason'), text(values, 'draft')];
    const opts = { by: byOrActor(values), ...(reason !== undefined ? { reason } : {}), ...(draft !== undefined ? { draft } : {}) };
    return redraft(ctx.config(), ctx.one(positionals, 'workflow id'), opts);
  },
};

const resendCommand: CliCommand<string> = {
  name: 'resend',
  usage: `resend <workflowId> [--force] [--by NAME]
                                        next send round now; --force only for a send in doubt,
                                        after checking the SMTP log: one more attempt`,
  options: { force: { type: 'boolean', default: false }, by: { type: 'string' } },
  run: (ctx, { positionals, values }) =>
    resend(ctx.config(), ctx.one(positionals, 'workflow id'), { by: byOrActor(values), force: values.force === true }),
};

const markSentCommand: CliCommand<string> = {
  name: 'mark-sent',
  usage: `mark-sent <workflowId> [--note N] [--by NAME]
                                        a send in doubt did arrive: record it as sent
(a decision the workflow refuses exits 5 with its reason)`,
  options: { note: { type: 'string' }, by: { type: 'string' } },
  run(ctx, { positionals, values }) {
    const note = text(values, 'note');
    return markSent(ctx.config(), ctx.one(positionals, 'workflow id'), { by: byOrActor(values), ...(note !== undefined ? { note } : {}) });
  },
};

export const approvalCommands: CliCommand[] = [approveCommand, rejectCommand, redraftCommand, resendCommand, markSentCommand];

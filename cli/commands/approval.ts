import { readFileSync } from 'node:fs';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from '../../lib/config';
import { approveSignal, rejectSignal, stateQuery } from '../../workflows/email-workflow';
import { CliError, connectTemporal } from '../context';

async function waitingHandle(config: Config, workflowId: string) {
  const temporal = await connectTemporal(config);
  const handle = temporal.client.workflow.getHandle(workflowId);
  try {
    const state = await handle.query(stateQuery);
    if (state.status !== 'awaiting_approval' && state.status !== 'manual_review') {
      await temporal.close();
      throw new CliError(`${workflowId} is not waiting for a decision (status ${state.status})`);
    }
    return { handle, state, close: temporal.close };
  } catch (err) {
    await temporal.close();
    if (err instanceof CliError) throw err;
    if (err instanceof WorkflowNotFoundError)
      throw new CliError(`no email workflow ${workflowId} (list waiting ones with: email-rag drafts)`);
    throw new CliError(`cannot read ${workflowId}: ${(err as Error).message}`);
  }
}

export async function approve(config: Config, workflowId: string, opts: { by: string; bodyFile?: string }): Promise<string> {
  let body: string | undefined;
  if (opts.bodyFile) {
    try {
      body = readFileSync(opts.bodyFile, 'utf8');
    } catch (err) {
      throw new CliError(`cannot read --body-file ${opts.bodyFile}: ${(err as Error).message}`, 2);
    }
    if (body.trim() === '') throw new CliError(`--body-file ${opts.bodyFile} is empty`, 2);
  }
  const { handle, state, close } = await waitingHandle(config, workflowId);
  try {
    if (state.status === 'manual_review' && !body) {
      throw new CliError(`${workflowId} has no usable draft (manual_review): approve it with --body-file containing your reply`, 2);
    }
    await handle.signal(approveSignal, { by: opts.by, ...(body !== undefined ? { body } : {}) });
  } finally {
    await close();
  }
  return `approved ${workflowId} as ${opts.by}${body !== undefined ? ' with an edited body' : ''}`;
}

export async function reject(config: Config, workflowId: string, opts: { by: string; reason: string }): Promise<string> {
  const { handle, close } = await waitingHandle(config, workflowId);
  try {
    await handle.signal(rejectSignal, { by: opts.by, reason: opts.reason });
  } finally {
    await close();
  }
  return `rejected ${workflowId} as ${opts.by}: ${opts.reason}`;
}

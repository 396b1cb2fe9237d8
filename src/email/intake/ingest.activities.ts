import type { EmailWorkflowInput } from '../email-input';
import type { Priority } from '../../triage';
import { ApplicationFailure } from '@temporalio/common';
import { errorMessage } from '../../platform/errors';
import type { FetchedMessage } from './fetch.activities';
import { HELD_INDEX, type IndexSource } from './parse.activities';
import type { ParseSummary } from '../email-activities';
import { createSlots } from '../../platform/slots';
import { runStep, stepWillRetry } from '../step-scope';
import { type IngestResult } from '../email-activities';

/**
 * The three steps the combined activity runs, each a complete activity of its own. A step may
 * hand the next one what it has in memory (the raw message, the parsed email), which saves
 * reading back what was just stored; without it the next step reads MariaDB.
 */
export interface IngestSteps {
  fetchEmail(input: EmailWorkflowInput): Promise<{ size: number; message?: FetchedMessage }>;
  parseEmail(input: {
    emailId: string;
    priority?: Priority;
    fetched?: FetchedMessage;
    answerRequestedBy?: string;
  }): Promise<ParseSummary | { summary: ParseSummary; email: IndexSource }>;
  indexEmail(input: { emailId: string; email?: IndexSource }): Promise<{ index: string }>;
}

/**
 * Fetch, parse and index as one activity: one task round trip instead of three, which is most of
 * what an email costs Temporal before its draft. Each step still has its queue row, attempts and
 * retry plan (the queue interceptor tracks them): a retried attempt runs the finished steps again,
 * which they allow (they are idempotent upserts keyed by the email id).
 *
 * `slots`: at most that many intakes at once in this process. The intake runs as a local
 * activity in the run's first workflow task, where no task queue's worker slots bound it; unbounded, a
 * burst of new mail would open more IMAP sessions than a server allows (Dovecot refuses the 11th
 * from one address by default) and turn into retries.
 */
export function createIngestActivities(steps: IngestSteps, slots?: number) {
  const intakes = slots ? createSlots(slots) : undefined;
  return {
    ingestEmail(input: EmailWorkflowInput & { priority?: Priority }): Promise<IngestResult> {
      return intakes ? intakes.run(() => ingest(steps, input)) : ingest(steps, input);
    },
  };
}

async function ingest(steps: IngestSteps, input: EmailWorkflowInput & { priority?: Priority }): Promise<IngestResult> {
  const { emailId } = input;
  // Looked up at call time: the steps object may be rewired (tests slow one step down).
  const fetched = await runStep('fetchEmail', () => steps.fetchEmail(input));
  const parseResult = await runStep('parseEmail', () =>
    steps.parseEmail({
      emailId,
      ...(input.priority ? { priority: input.priority } : {}),
      ...(input.answerRequestedBy ? { answerRequestedBy: input.answerRequestedBy } : {}),
      ...(fetched.message ? { fetched: fetched.message } : {}),
    }),
  );
  // Only the summary goes back to the workflow: the parsed email stays in this process.
  const { parsed, email } =
    'summary' in parseResult ? { parsed: parseResult.summary, email: parseResult.email } : { parsed: parseResult, email: undefined };
  // A triaged email gets no draft; it is not indexed either, as before.
  if (parsed.triage && !input.answerRequestedBy) return { size: fetched.size, parsed };
  // Held for a person (an abuse complaint): the run goes on to manual review, the text is no context.
  if (parsed.held) return { size: fetched.size, parsed, index: `${HELD_INDEX} (${parsed.held.class})` };
  try {
    const indexed = await runStep('indexEmail', () => steps.indexEmail({ emailId, ...(email ? { email } : {}) }));
    return { size: fetched.size, parsed, index: indexed.index };
  } catch (err) {
    // After its 3 attempts the index step gives up and the pipeline goes on with less context
    // (partially_indexed; the re-index sync completes it later).
    if (stepWillRetry(err)) throw err;
    const type = err instanceof ApplicationFailure && err.type ? `${err.type}: ` : '';
    return { size: fetched.size, parsed, indexError: `${type}${errorMessage(err)}` };
  }
}

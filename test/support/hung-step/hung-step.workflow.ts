/**
 * The workflow of test/e2e/hung-step.e2e.test.ts: one queue step (the `pollMailbox` activity type,
 * profile `poll`: 3 attempts, retried after 5 s and 15 s) with short timeouts, reporting how it ended.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities, TimeoutFailure } from '@temporalio/workflow';
import { PROFILES } from '../../../src/platform/activity-profiles.workflow';

export interface HungStepInput {
  taskQueue: string;
  emailId: string;
  mode: 'hang' | 'hang-first';
  startToCloseMs: number;
  heartbeatTimeoutMs: number;
}

export interface HungStepOutcome {
  result?: string;
  failure?: { type: string | null | undefined; nonRetryable: boolean | null | undefined } | { timeoutType: string };
}

export async function hungStep(input: HungStepInput): Promise<HungStepOutcome> {
  const { pollMailbox } = proxyActivities<{ pollMailbox(i: { emailId: string; mode: string }): Promise<string> }>({
    taskQueue: input.taskQueue,
    startToCloseTimeout: input.startToCloseMs,
    heartbeatTimeout: input.heartbeatTimeoutMs,
    // The profile's own bound: its 3 attempts and the lost ones allowed on top, retried at once.
    retry: { ...PROFILES.poll.options.retry, maximumInterval: '2 seconds' },
  });
  try {
    return { result: await pollMailbox({ emailId: input.emailId, mode: input.mode }) };
  } catch (err) {
    if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure)
      return { failure: { type: err.cause.type, nonRetryable: err.cause.nonRetryable } };
    if (err instanceof ActivityFailure && err.cause instanceof TimeoutFailure)
      return { failure: { timeoutType: String(err.cause.timeoutType) } };
    throw err;
  }
}

import type { Config } from '../../platform/config';
import { CliError, connectDatabase, connectTemporal } from '../../platform/cli-context';
import { text, type CliCommand } from '../../platform/cli-command';
import { pullBack, PullBackRefused } from './pull-back';
import { temporalPullBackStart } from './pull-back.temporal';

/**
 * A person pulls an email that triage set aside (`ignored`: a bounce, an auto-reply, spam, …) back
 * into the pipeline for a reply (src/email/intake/pull-back.ts); the review inbox's "not spam" does the same.
 */
export async function answer(config: Config, emailId: string, by: string): Promise<string> {
  const pool = await connectDatabase(config);
  try {
    const temporal = await connectTemporal(config);
    try {
      return await pullBack(
        {
          pool,
          maxDrafts: config.maxDrafts,
          llmTimeoutMs: config.llm.timeoutMs,
          start: temporalPullBackStart(temporal.client, config.temporal.taskQueue),
        },
        emailId,
        by,
      );
    } finally {
      await temporal.close();
    }
  } catch (err) {
    if (err instanceof PullBackRefused) throw new CliError(err.message, err.code);
    throw err;
  } finally {
    await pool.end();
  }
}

export const answerCommand: CliCommand<string> = {
  name: 'answer',
  usage: 'answer <emailId> --by NAME              draft a reply to an email triage set aside (status ignored, spam too)',
  options: { by: { type: 'string' } },
  run(ctx, { positionals, values }) {
    const id = ctx.one(positionals, 'email id');
    const by = text(values, 'by');
    if (by === undefined || by.trim() === '') throw new CliError('answer needs --by NAME (who asked for the reply)', 2);
    return answer(ctx.config(), id, by.trim());
  },
};

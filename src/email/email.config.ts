/** The email section of the configuration (src/config.ts assembles the sections): drafts and reply limits. */
import { DEFAULT_MAX_DRAFTS, DEFAULT_REPLY_LIMIT_PER_HOUR } from './email.contract';
import { envValues, type Env } from '../platform/env-values';

export interface EmailConfig {
  /** Drafts one email may get (redrafts and thread follow-ups) before a person writes the reply (MAX_DRAFTS). */
  maxDrafts: number;
  /**
   * Machine drafts to one correspondent address per hour (REPLY_LIMIT_PER_HOUR); mail beyond it
   * waits for a person without a draft. 0 turns the limit off.
   */
  replyLimitPerHour: number;
}

export function readEmailConfig(env: Env, problems: string[]): EmailConfig {
  const v = envValues(env, problems);
  return {
    maxDrafts: v.intInRange('MAX_DRAFTS', DEFAULT_MAX_DRAFTS, 1, 50),
    replyLimitPerHour: v.intInRange('REPLY_LIMIT_PER_HOUR', DEFAULT_REPLY_LIMIT_PER_HOUR, 0, 10_000),
  };
}

// This feature's section of the whole configuration (src/platform/config.ts).
declare module '../platform/config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the whole configuration
  interface Config extends EmailConfig {}
}

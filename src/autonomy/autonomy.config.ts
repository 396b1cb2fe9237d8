/**
 * The autonomy section of the configuration (src/config.ts assembles the sections): AUTONOMY_FILE,
 * read once at start; no variable: autonomy is off everywhere.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseAutonomyPolicy, type AutonomyPolicy } from './autonomy-policy';
import { ConfigError, errorMessage } from '../platform/errors';
import { envValues, type Env } from '../platform/env-values';

export interface AutonomyConfig {
  /** AUTONOMY_FILE: which categories of which mailbox may be sent without a person; null (no file): none. */
  autonomy: AutonomyPolicy | null;
}

/** `mailboxIds`: the mailboxes served, which the policy may name. */
export function readAutonomyConfig(env: Env, problems: string[], mailboxIds: readonly string[]): AutonomyConfig {
  try {
    return { autonomy: readAutonomyPolicy(envValues(env, problems).optional('AUTONOMY_FILE'), mailboxIds) };
  } catch (err) {
    problems.push(errorMessage(err));
    return { autonomy: null };
  }
}

export function readAutonomyPolicy(file: string | undefined, knownMailboxes: readonly string[]): AutonomyPolicy | null {
  if (!file) return null;
  let text: string;
  try {
    text = readFileSync(path.resolve(file), 'utf8');
  } catch (err) {
    throw new ConfigError(`AUTONOMY_FILE cannot be read: ${errorMessage(err)}`);
  }
  return parseAutonomyPolicy(text, `AUTONOMY_FILE ${file}`, knownMailboxes);
}

// This feature's section of the whole configuration (src/platform/config.ts).
declare module '../platform/config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the whole configuration
  interface Config extends AutonomyConfig {}
}

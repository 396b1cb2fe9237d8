/** Reads AUTONOMY_FILE once at start (src/config.ts); no variable: autonomy is off everywhere. */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseAutonomyPolicy, type AutonomyPolicy } from './autonomy-policy';
import { ConfigError, errorMessage } from '../platform/errors';

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

/**
 * Rules for the passwords of local review-inbox users (set by `email-rag inbox users add` and
 * `reset-password`): long enough, not on the list of common passwords shipped with
 * @zxcvbn-ts/language-common (about 49,000, checked case-insensitively), not containing the user
 * name, and not guessable from common words and patterns (zxcvbn score at least 3 of 4, the user
 * name among its inputs: catches "password1234", "qwertyuiop12", "aaaaaaaaaaaa").
 */
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';

export const PASSWORD_RULES = {
  minLength: 12,
  /** bcrypt reads only the first 72 bytes; a longer password would be cut without a word. */
  maxBytes: 72,
  minScore: 3,
  /** A user name shorter than this may appear in a password (two letters are in many words). */
  nameCheckFrom: 3,
} as const;

let zxcvbn: ZxcvbnFactory | undefined;
let commonList: Set<string> | undefined;

function checker(): { zxcvbn: ZxcvbnFactory; commonList: Set<string> } {
  zxcvbn ??= new ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
  commonList ??= new Set((common.dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));
  return { zxcvbn, commonList };
}

/** Why `password` may not be used by `name`, or null when it may. */
export function passwordProblem(name: string, password: string): string | null {
  const r = PASSWORD_RULES;
  if ([...password].length < r.minLength) return `the password needs at least ${r.minLength} characters`;
  if (Buffer.byteLength(password, 'utf8') > r.maxBytes)
    return `the password may have at most ${r.maxBytes} bytes (bcrypt ignores the rest)`;
  const lower = password.toLowerCase();
  const { zxcvbn: z, commonList: list } = checker();
  if (list.has(lower)) return 'the password is on the list of common passwords';
  const plainName = name.trim().toLowerCase();
  if (plainName.length >= r.nameCheckFrom && lower.includes(plainName)) return 'the password may not contain the user name';
  const result = z.check(password, [plainName]);
  if (result.score < r.minScore) {
    const hint = result.feedback.warning ? ` (${result.feedback.warning})` : '';
    return `the password is too easy to guess${hint}: use a longer phrase of unrelated words`;
  }
  return null;
}

/**
 * Settings renamed in a release. The old name keeps working for one more release: its value is
 * read under the new name and the operator is told, at every start, what to change. Both names
 * set to different values is a configuration error (which one was meant cannot be guessed).
 */
import type { Env } from './env-values';

export interface RenamedSetting {
  now: string;
  /** The release that renamed it, and the one from which the old name is refused. */
  since: string;
  until: string;
  why: string;
}

export const RENAMED_SETTINGS: Readonly<Record<string, RenamedSetting>> = Object.freeze({
  IMAP_MAILBOX: { now: 'IMAP_FOLDER', since: '1.5', until: '1.6', why: 'it names an IMAP folder; a mailbox is a configured account' },
  IMAP_SENT_MAILBOX: {
    now: 'IMAP_SENT_FOLDER',
    since: '1.5',
    until: '1.6',
    why: 'it names an IMAP folder; a mailbox is a configured account',
  },
});

/** The environment with each old name's value under its new name, and the warnings to show. */
export function withRenamedSettings(env: Env, problems: string[]): { env: Env; warnings: string[] } {
  const out: Env = { ...env };
  const warnings: string[] = [];
  for (const [old, r] of Object.entries(RENAMED_SETTINGS)) {
    const before = env[old]?.trim();
    if (!before) continue;
    const now = env[r.now]?.trim();
    if (now && now !== before) {
      problems.push(`${old} is the old name of ${r.now} (${r.why}); both are set, to different values: keep ${r.now} only`);
      continue;
    }
    out[r.now] = before;
    warnings.push(`${old} is renamed ${r.now} in ${r.since} (${r.why}); the old name works until ${r.until}: set ${r.now} instead`);
  }
  return { env: out, warnings };
}

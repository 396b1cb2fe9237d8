/** How long personal data is kept (RETENTION_*), read with the rest of the configuration. 0 = keep. */

export interface RetentionSettings {
  /** RETENTION_RAW_MAIL_DAYS (default 90): the raw message (.eml) of an email that ended (sent, rejected, ignored, failed). */
  rawMailDays: number;
  /** RETENTION_BODIES_DAYS (default 365): body, subject and drafts of an email that ended, and its case's summary once closed. */
  bodiesDays: number;
  /** RETENTION_PASSAGES_DAYS (default 730): index passages (and vectors) of correspondents with no open email. */
  passagesDays: number;
  /** RETENTION_AUDIT_DAYS (default 730): audit_log rows. */
  auditDays: number;
  /** RETENTION_ACCESS_LOG_DAYS (default 365): access_log rows. */
  accessLogDays: number;
}

export const RETENTION_DEFAULTS: RetentionSettings = {
  rawMailDays: 90,
  bodiesDays: 365,
  passagesDays: 730,
  auditDays: 730,
  accessLogDays: 365,
};

const NAMES: Record<keyof RetentionSettings, string> = {
  rawMailDays: 'RETENTION_RAW_MAIL_DAYS',
  bodiesDays: 'RETENTION_BODIES_DAYS',
  passagesDays: 'RETENTION_PASSAGES_DAYS',
  auditDays: 'RETENTION_AUDIT_DAYS',
  accessLogDays: 'RETENTION_ACCESS_LOG_DAYS',
};

/** Up to 100 years; 0 keeps forever. */
const MAX_DAYS = 36_500;

export function readRetention(env: Record<string, string | undefined>, problems: string[]): RetentionSettings {
  const out = { ...RETENTION_DEFAULTS };
  for (const key of Object.keys(NAMES) as Array<keyof RetentionSettings>) {
    const name = NAMES[key];
    const raw = env[name]?.trim();
    if (!raw) continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > MAX_DAYS) {
      problems.push(`${name} must be a whole number of days between 0 (keep) and ${MAX_DAYS}, got "${raw}"`);
      continue;
    }
    out[key] = n;
  }
  // Bodies kept longer than the raw mail they came from is fine; raw mail outliving its body is not useful.
  if (out.rawMailDays > 0 && out.bodiesDays > 0 && out.rawMailDays > out.bodiesDays) {
    problems.push(`RETENTION_RAW_MAIL_DAYS (${out.rawMailDays}) must not exceed RETENTION_BODIES_DAYS (${out.bodiesDays})`);
  }
  return out;
}

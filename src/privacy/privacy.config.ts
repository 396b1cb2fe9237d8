/** How long personal data is kept (RETENTION_*), read with the rest of the configuration. 0 = keep. */
import { envValues, type Env } from '../platform/env-values';

/** The privacy section of the configuration. */
export interface PrivacyConfig {
  /** How long personal data is kept (RETENTION_*; docs/data-protection.md). */
  retention: RetentionSettings;
}

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

export function readPrivacyConfig(env: Env, problems: string[]): PrivacyConfig {
  return { retention: readRetention(env, problems) };
}

export function readRetention(env: Env, problems: string[]): RetentionSettings {
  const v = envValues(env, problems);
  const out = { ...RETENTION_DEFAULTS };
  for (const key of Object.keys(NAMES) as Array<keyof RetentionSettings>) out[key] = v.daysOrKeep(NAMES[key], out[key], MAX_DAYS);
  // Bodies kept longer than the raw mail they came from is fine; raw mail outliving its body is not useful.
  if (out.rawMailDays > 0 && out.bodiesDays > 0 && out.rawMailDays > out.bodiesDays) {
    problems.push(`RETENTION_RAW_MAIL_DAYS (${out.rawMailDays}) must not exceed RETENTION_BODIES_DAYS (${out.bodiesDays})`);
  }
  return out;
}

// This feature's section of the whole configuration (src/platform/config.ts).
declare module '../platform/config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the whole configuration
  interface Config extends PrivacyConfig {}
}

import * as path from 'node:path';
import {
  buildBusinessCalendar,
  DEFAULT_DEADLINE_SETTINGS,
  DEFAULT_REMINDER_BEFORE,
  DEFAULT_RESPONSE_TARGETS,
  formatDuration,
  parseBusinessDuration,
  parseHolidayRegion,
  type DeadlineSettings,
  type EscalationTargets,
  type ReminderBefore,
} from '../business-time';
import { PRIORITIES, type Priority } from '../triage';
import { parseSecretRef } from '../platform/secret-ref';

/** The registry fields of a mailbox's response deadlines (docs/cases.md#deadlines). */
export const DEADLINE_FIELDS = ['businessHours', 'responseTargets', 'reminderBefore', 'escalation'] as const;
/** The fields of `businessHours` and `escalation`, for the registry's schema (src/mailboxes/mailbox-registry-schema.ts). */
export const BUSINESS_HOURS_FIELDS = ['timeZone', 'weekly', 'holidaysFile', 'holidaysRegion'] as const;
export const ESCALATION_FIELDS = ['email', 'webhook', 'webhookSecret'] as const;

const ADDRESS = /^[^\s@<>()",;:]+@[^\s"(),:;<>@][^\s"(),.:;<>@]*\.[^\s"(),:;<>@]+$/;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** Longest target accepted: about a year of 8-hour working days. */
const MAX_TARGET_MS = 2_000 * 3_600_000;

/**
 * Reads a registry entry's deadline fields. Absent fields take the defaults (always open, the
 * default targets, a reminder at 25 % left, no escalation address); every problem is reported
 * through `problem` with the field it belongs to, so a bad entry lists all of them at once.
 * Returns undefined when the entry sets none of the fields: the mailbox uses the defaults. Unknown
 * fields are the registry schema's to report.
 */
export function parseDeadlineSettings(o: Record<string, unknown>, problem: (p: string) => void): DeadlineSettings | undefined {
  if (DEADLINE_FIELDS.every((k) => o[k] === undefined)) return undefined;
  const responseTargets = parseTargets(o.responseTargets, problem);
  const reminderBefore = parseReminder(o.reminderBefore, problem);
  const businessHours = parseBusinessHours(o.businessHours, problem);
  const escalation = parseEscalation(o.escalation, problem);
  if ('ms' in reminderBefore) {
    const shortest = Math.min(...PRIORITIES.map((p) => responseTargets[p]));
    if (reminderBefore.ms >= shortest)
      problem(
        `.reminderBefore (${formatDuration(reminderBefore.ms)}) must be shorter than the shortest response target (${formatDuration(shortest)})`,
      );
  }
  return { ...(businessHours ? { businessHours } : {}), responseTargets, reminderBefore, escalation };
}

function record(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function parseTargets(raw: unknown, problem: (p: string) => void): Record<Priority, number> {
  const targets = { ...DEFAULT_RESPONSE_TARGETS };
  if (raw === undefined) return targets;
  const o = record(raw);
  if (!o) {
    problem(`.responseTargets must map priorities (${PRIORITIES.join(', ')}) to business time like "4h", got ${JSON.stringify(raw)}`);
    return targets;
  }
  for (const [key, value] of Object.entries(o)) {
    if (!(PRIORITIES as readonly string[]).includes(key)) {
      problem(`.responseTargets: "${key}" is not a priority (${PRIORITIES.join(', ')})`);
      continue;
    }
    const ms = parseBusinessDuration(value);
    if (ms === null || ms > MAX_TARGET_MS)
      problem(`.responseTargets.${key} must be business time like "30m", "4h" or "1h30m" (at most 2000h), got ${JSON.stringify(value)}`);
    else targets[key as Priority] = ms;
  }
  // A more urgent priority with a longer target would make the reminder's raise move the deadline away.
  for (let i = 1; i < PRIORITIES.length; i++) {
    const [hi, lo] = [PRIORITIES[i - 1]!, PRIORITIES[i]!];
    if (targets[hi] > targets[lo])
      problem(`.responseTargets.${hi} (${formatDuration(targets[hi])}) must not be longer than ${lo} (${formatDuration(targets[lo])})`);
  }
  return targets;
}

function parseReminder(raw: unknown, problem: (p: string) => void): ReminderBefore {
  if (raw === undefined) return DEFAULT_REMINDER_BEFORE;
  const pct = typeof raw === 'string' ? /^\s*(\d{1,2}(?:\.\d+)?)\s*%\s*$/.exec(raw) : null;
  if (pct) {
    const percent = Number(pct[1]);
    if (percent > 0 && percent < 100) return { percent };
  }
  const ms = pct ? null : parseBusinessDuration(raw);
  if (ms !== null) return { ms };
  problem(`.reminderBefore must be a share of the target like "25%" (1 to 99) or business time like "1h", got ${JSON.stringify(raw)}`);
  return DEFAULT_REMINDER_BEFORE;
}

function parseBusinessHours(raw: unknown, problem: (p: string) => void): DeadlineSettings['businessHours'] {
  if (raw === undefined) return undefined;
  const o = record(raw);
  if (!o) {
    problem(`.businessHours must be { timeZone, weekly, holidaysFile, holidaysRegion }, got ${JSON.stringify(raw)}`);
    return undefined;
  }
  const cal = buildBusinessCalendar({ timeZone: o.timeZone, weekly: o.weekly }, (p) => problem(`.businessHours.${p}`));
  let holidaysFile: string | undefined;
  if (o.holidaysFile !== undefined) {
    if (typeof o.holidaysFile === 'string' && o.holidaysFile.trim()) holidaysFile = path.resolve(o.holidaysFile.trim());
    else problem(`.businessHours.holidaysFile must be a file path, got ${JSON.stringify(o.holidaysFile)}`);
  }
  let holidaysRegion: string | undefined;
  if (o.holidaysRegion !== undefined) {
    const r = parseHolidayRegion(o.holidaysRegion);
    if ('code' in r) holidaysRegion = r.code;
    else problem(`.businessHours.holidaysRegion ${r.problem}`);
  }
  if (!cal) return undefined;
  return {
    timeZone: cal.timeZone,
    weekly: cal.weekly,
    ...(holidaysFile ? { holidaysFile } : {}),
    ...(holidaysRegion ? { holidaysRegion } : {}),
  };
}

function parseEscalation(raw: unknown, problem: (p: string) => void): EscalationTargets {
  if (raw === undefined) return { ...DEFAULT_DEADLINE_SETTINGS.escalation };
  const o = record(raw);
  if (!o) {
    problem(`.escalation must be { email, webhook }, got ${JSON.stringify(raw)}`);
    return {};
  }
  const out: EscalationTargets = {};
  if (o.email !== undefined) {
    if (typeof o.email === 'string' && ADDRESS.test(o.email.trim())) out.email = o.email.trim();
    else problem(`.escalation.email must be one email address, got ${JSON.stringify(o.email)}`);
  }
  if (o.webhook !== undefined) {
    const text = typeof o.webhook === 'string' ? o.webhook.trim() : '';
    const u = URL.canParse(text) ? new URL(text) : undefined;
    // The case's correspondent and subject cross this connection: https, or http to this host only.
    if (u && !u.username && !u.password && (u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.has(u.hostname))))
      out.webhook = u.toString();
    else
      problem(
        `.escalation.webhook must be an https URL without user:password (http only to 127.0.0.1 or localhost), got ${JSON.stringify(o.webhook)}`,
      );
  }
  if (o.webhookSecret !== undefined) {
    const ref = parseSecretRef(o.webhookSecret);
    if (typeof o.webhookSecret === 'string')
      // A literal secret in a versioned file would end up in git and backups.
      problem('.escalation.webhookSecret must reference the secret ({ env: VARIABLE } or { file: path }), not contain it');
    else if (!ref) problem('.escalation.webhookSecret must be { env: VARIABLE } or { file: path }');
    else if (o.webhook === undefined) problem('.escalation.webhookSecret signs the webhook: set .escalation.webhook too');
    else out.webhookSecret = ref;
  }
  return out;
}

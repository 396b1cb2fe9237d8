/**
 * The autonomy policy (AUTONOMY_FILE): per mailbox, the categories of mail that may be sent
 * without a person while their record allows it, the bars that record must clear, and the grace
 * period in which a person can still stop a send. No file, or a mailbox not named: every draft
 * waits for a person. Pure: parsing and judging; reading the file is src/autonomy/autonomy.config.ts.
 */
import { parse as parseYaml } from 'yaml';
import { ConfigError, errorMessage } from '../platform/errors';
import { anyValue, fields, mapOf, unknownFieldProblems, whenObject } from '../platform/config-schema';
import { wilsonInterval } from '../platform/wilson-interval';
import { describeReplay, parseReplayCounting, type ReplayCounting, type ReplayEvidence } from './replay-evidence';

export const AUTONOMY_DEFAULTS = {
  /** The record needs at least this many reviewed drafts of the mailbox and category. */
  minReviewed: 50,
  /** The last this many reviewed drafts are the record (a long memory, and a drift still shows). */
  recordSize: 200,
  /**
   * The share of the record a person approved unchanged, as the lower bound of its 95 % Wilson
   * interval: the rate the record shows with confidence, not the rate it happens to show.
   */
  minUnchangedShare: 0.9,
  /** Minutes between the verdict and the send, in which a person can stop it. */
  graceMinutes: 10,
  /** The drafter's own confidence a draft must reach. */
  minConfidence: 0.8,
} as const;

export interface MailboxAutonomy {
  mailboxId: string;
  /** Categories (the drafter's, as in `drafts.category`) that may be sent without a person. */
  categories: string[];
  minReviewed: number;
  recordSize: number;
  minUnchangedShare: number;
  graceMinutes: number;
  minConfidence: number;
  /** Phrases that keep a draft for a person in this mailbox, beside the built-in topics. */
  neverAutomatic: string[];
  /** Named replay runs whose results count beside live decisions (`countReplay`); absent: none do (the default). */
  countReplay?: ReplayCounting;
}

export interface AutonomyPolicy {
  name: string;
  version: string;
  mailboxes: Record<string, MailboxAutonomy>;
}

/** How the policy is named in the audit log and as the approving actor: `name@version`. */
export function policyLabel(policy: Pick<AutonomyPolicy, 'name' | 'version'>): string {
  return `${policy.name}@${policy.version}`;
}

/** A category's record: its newest reviewed drafts in one mailbox and how many were approved unchanged. */
export interface CategoryRecord {
  reviewed: number;
  unchanged: number;
}

export interface RecordJudgement {
  qualifies: boolean;
  /** The unchanged share of what was counted: the live record, plus a named replay's pairs when the policy lets them count. */
  share: number;
  /** The 95 % Wilson interval of the unchanged share; the lower bound is what the bar is compared with. */
  lower: number;
  upper: number;
  /** Why it does not qualify, when it does not. */
  reason: string | null;
  /** Live decisions and counted replay pairs together: what share and interval are of. */
  counted: CategoryRecord;
  /** The evidence split in words when the policy names a replay ("live … ; replay … ; together …"), else null. */
  evidence: string | null;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;

/**
 * Whether a record clears the mailbox's bars: enough reviewed drafts, and the lower bound of the
 * 95 % interval of the unchanged share at or above the bar. 50 of 50 unchanged gives 0.93, so a
 * bar of 0.9 takes at least 35 in a row; 19 of 20 (0.76) never clears it.
 *
 * `replay`: the pairs of named replay runs the policy lets count (already capped). They join the
 * share and its interval, never the minimum: that many drafts must have been reviewed by people in
 * operation whatever a replay shows.
 */
export function judgeRecord(
  record: CategoryRecord,
  bars: Pick<MailboxAutonomy, 'minReviewed' | 'minUnchangedShare'>,
  replay?: ReplayEvidence | null,
): RecordJudgement {
  const counted = replay
    ? { reviewed: record.reviewed + replay.reviewed, unchanged: record.unchanged + replay.unchanged }
    : { reviewed: record.reviewed, unchanged: record.unchanged };
  const share = counted.reviewed === 0 ? 0 : counted.unchanged / counted.reviewed;
  const { lower, upper } = wilsonInterval(counted.unchanged, counted.reviewed);
  const interval = `${pct(share)}; 95 % interval ${pct(lower)}–${pct(upper)}`;
  const evidence = replay
    ? [
        `live ${record.unchanged} of ${record.reviewed} approved unchanged`,
        describeReplay(replay) || 'replay: nothing counted',
        `together ${counted.unchanged} of ${counted.reviewed} (${interval})`,
      ].join('; ')
    : null;
  const figures = { share, lower, upper, counted, evidence };
  if (record.reviewed < bars.minReviewed)
    return {
      qualifies: false,
      ...figures,
      reason: `only ${record.reviewed} reviewed drafts, ${bars.minReviewed} needed${replay ? ' (replay pairs do not count toward it)' : ''}`,
    };
  if (lower < bars.minUnchangedShare)
    return {
      qualifies: false,
      ...figures,
      reason: `${evidence ?? `${record.unchanged} of ${record.reviewed} approved unchanged (${interval})`}: the lower bound is below ${pct(bars.minUnchangedShare)}`,
    };
  return { qualifies: true, ...figures, reason: null };
}

const ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const THRESHOLD_KEYS = ['minReviewed', 'recordSize', 'minUnchangedShare', 'graceMinutes', 'minConfidence'] as const;
const thresholdFields = Object.fromEntries(THRESHOLD_KEYS.map((k) => [k, anyValue]));

/** Every field a policy file may have, at every level; any other key is refused with its path. */
const AUTONOMY_SCHEMA = fields({
  policy: anyValue,
  version: anyValue,
  defaults: whenObject(fields(thresholdFields)),
  mailboxes: mapOf(
    fields({ categories: anyValue, neverAutomatic: anyValue, ...thresholdFields, countReplay: anyValue, replayCap: anyValue }),
  ),
});
type Thresholds = Pick<MailboxAutonomy, (typeof THRESHOLD_KEYS)[number]>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Each threshold's rule: whole numbers for counts and minutes, shares between 0 and 1. */
function threshold(key: (typeof THRESHOLD_KEYS)[number], v: unknown, where: string, problems: string[]): number | undefined {
  if (v === undefined) return undefined;
  const whole = key === 'minReviewed' || key === 'recordSize' || key === 'graceMinutes';
  const [min, max] = key === 'minReviewed' || key === 'recordSize' ? [1, 10_000] : key === 'graceMinutes' ? [1, 24 * 60] : [0, 1];
  if (typeof v !== 'number' || !Number.isFinite(v) || (whole && !Number.isInteger(v)) || v < min || v > max) {
    problems.push(`${where}.${key} must be ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}, got ${JSON.stringify(v)}`);
    return undefined;
  }
  return v;
}

function thresholds(raw: Record<string, unknown>, where: string, base: Thresholds, problems: string[]): Thresholds {
  const out = { ...base };
  for (const key of THRESHOLD_KEYS) out[key] = threshold(key, raw[key], where, problems) ?? base[key];
  // A record of the last N drafts can never hold the minimum count when N is smaller: said so when
  // both were written, else the record grows to the minimum.
  if (out.recordSize < out.minReviewed) {
    if (raw.recordSize !== undefined)
      problems.push(`${where}: recordSize (${out.recordSize}) must be at least minReviewed (${out.minReviewed})`);
    else out.recordSize = out.minReviewed;
  }
  return out;
}

function stringList(v: unknown, where: string, max: number, problems: string[]): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    problems.push(`${where} must be a list`);
    return [];
  }
  const out: string[] = [];
  v.forEach((x, i) => {
    if (typeof x !== 'string' && typeof x !== 'number') problems.push(`${where}[${i}] must be text, got ${JSON.stringify(x)}`);
    else if (String(x).trim() === '' || String(x).length > max) problems.push(`${where}[${i}] must be 1 to ${max} characters`);
    else out.push(String(x).trim());
  });
  return out;
}

function mailboxEntry(
  id: string,
  raw: unknown,
  base: Thresholds,
  known: readonly string[] | undefined,
  problems: string[],
): MailboxAutonomy | null {
  const where = `mailboxes.${id}`;
  if (!ID.test(id)) problems.push(`${where}: a mailbox id is lower-case letters, digits and -`);
  else if (known && !known.includes(id)) problems.push(`${where}: no such mailbox in the registry (known: ${known.join(', ')})`);
  if (!isObject(raw)) {
    problems.push(`${where} must be a mapping with categories`);
    return null;
  }
  const categories = stringList(raw.categories, `${where}.categories`, 100, problems);
  if (raw.categories === undefined) problems.push(`${where}.categories is required (the categories that may be sent without a person)`);
  const countReplay = parseReplayCounting(raw, where, problems);
  return {
    mailboxId: id,
    categories: [...new Set(categories)],
    ...thresholds(raw, where, base, problems),
    neverAutomatic: stringList(raw.neverAutomatic, `${where}.neverAutomatic`, 100, problems),
    ...(countReplay ? { countReplay } : {}),
  };
}

/**
 * Parses and validates a policy; throws one ConfigError listing every problem. `knownMailboxes`:
 * the registry's ids, so a policy for a mailbox that does not exist is refused.
 */
export function parseAutonomyPolicy(text: string, source: string, knownMailboxes?: readonly string[]): AutonomyPolicy {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`${source} is not valid YAML: ${errorMessage(err)}`);
  }
  const problems: string[] = [];
  if (!isObject(doc)) throw new ConfigError(`${source} must be a mapping with policy, version and mailboxes`);
  problems.push(...unknownFieldProblems(AUTONOMY_SCHEMA, doc));
  const name = typeof doc.policy === 'string' ? doc.policy.trim() : '';
  if (!NAME.test(name)) problems.push('policy must be a name (letters, digits, . _ -, at most 64), it names every automatic send');
  const version = typeof doc.version === 'number' || typeof doc.version === 'string' ? String(doc.version).trim() : '';
  if (!NAME.test(version)) problems.push('version must be a number or a short word (letters, digits, . _ -)');
  let base: Thresholds = { ...AUTONOMY_DEFAULTS };
  if (doc.defaults !== undefined) {
    if (!isObject(doc.defaults)) problems.push('defaults must be a mapping');
    else base = thresholds(doc.defaults, 'defaults', base, problems);
  }
  const mailboxes: Record<string, MailboxAutonomy> = {};
  if (!isObject(doc.mailboxes)) problems.push('mailboxes must be a mapping of mailbox id to its categories and bars');
  else
    for (const [id, raw] of Object.entries(doc.mailboxes)) {
      const entry = mailboxEntry(id, raw, base, knownMailboxes, problems);
      if (entry) mailboxes[id] = entry;
    }
  if (problems.length > 0) throw new ConfigError(`${source}: ${problems.join('; ')}`);
  return { name, version, mailboxes };
}

/** How a category of a mailbox stands (`email-rag autonomy status`, the operations page). */
export type CategoryState = 'qualifies' | 'below_bar' | 'not_listed' | 'switched_off';

export function categoryState(
  policy: AutonomyPolicy | null,
  mailboxId: string,
  category: string,
  record: CategoryRecord,
  switchOn: boolean,
  replay?: ReplayEvidence | null,
): CategoryState {
  const entry = policy?.mailboxes[mailboxId];
  if (!entry?.categories.includes(category)) return 'not_listed';
  if (!switchOn) return 'switched_off';
  return judgeRecord(record, entry, replay).qualifies ? 'qualifies' : 'below_bar';
}

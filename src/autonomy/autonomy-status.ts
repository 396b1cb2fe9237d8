/**
 * Where autonomy stands, for `email-rag autonomy status` and the review inbox: the switch, each
 * mailbox category's record against its bar, and the automatic sends waiting for their time; and
 * the switch itself, audited. Works through the ports only.
 */
import { DECISION_LIMITS } from '../email';
import { AUTONOMY_EVENTS } from './autonomy.contract';
import { AUTONOMY_DEFAULTS, categoryState, policyLabel, type AutonomyPolicy, type CategoryState } from './autonomy-policy';
import { judgeCategory } from './category-judgement';
import { countedRuns, describeReplay } from './replay-evidence';
import type { AutonomyStore, AutonomySwitch } from './autonomy.port';
import type { AuditLog } from '../platform/store.port';

/** What a named replay added to a category's record (the policy's `countReplay`). */
export interface ReplayStanding {
  /** The runs whose pairs counted. */
  runs: string[];
  reviewed: number;
  unchanged: number;
  /** Live and replay together: what `lower` and `upper` are the interval of. */
  countedReviewed: number;
  countedUnchanged: number;
  countedShare: number;
  /** The split in words, with any named run that counted nothing and why. */
  evidence: string;
}

export interface CategoryStanding {
  mailboxId: string;
  category: string;
  /** People's live decisions and their unchanged share. */
  reviewed: number;
  unchanged: number;
  share: number;
  /** The 95 % Wilson interval judged (with the replay pairs when they count); the lower bound is compared with minShare. */
  lower: number;
  upper: number;
  /** Null unless the mailbox's policy lets a replay count. */
  replay: ReplayStanding | null;
  minReviewed: number;
  recordSize: number;
  minShare: number;
  state: CategoryState;
  /** When a verdict last found it fall below its bar after clearing it; null: never. */
  lastDemotedAt: Date | null;
}

export interface AutonomyStatus {
  switch: AutonomySwitch;
  /** `name@version` of AUTONOMY_FILE's policy; null without one (autonomy off everywhere). */
  policy: string | null;
  categories: CategoryStanding[];
  pending: Array<{ emailId: string; draftId: string; mailboxId: string; category: string; sendAfter: Date; policy: string }>;
}

export async function readAutonomyStatus(store: AutonomyStore, policy: AutonomyPolicy | null): Promise<AutonomyStatus> {
  const sw = await store.switchState();
  const pairs = new Map<string, { mailboxId: string; category: string }>();
  for (const entry of Object.values(policy?.mailboxes ?? {}))
    for (const category of entry.categories) pairs.set(`${entry.mailboxId}\u0000${category}`, { mailboxId: entry.mailboxId, category });
  for (const p of await store.categoriesWithOutcomes()) pairs.set(`${p.mailboxId}\u0000${p.category}`, p);
  const categories: CategoryStanding[] = [];
  const standings = new Map((await store.standings()).map((s) => [`${s.mailboxId}\u0000${s.category}`, s]));
  for (const { mailboxId, category } of pairs.values()) {
    // A mailbox without a policy is measured against the defaults, so its record shows what it would take.
    const bars = policy?.mailboxes[mailboxId] ?? {
      minReviewed: AUTONOMY_DEFAULTS.minReviewed,
      recordSize: AUTONOMY_DEFAULTS.recordSize,
      minUnchangedShare: AUTONOMY_DEFAULTS.minUnchangedShare,
    };
    const { record, replay, judged } = await judgeCategory(store, mailboxId, category, bars);
    categories.push({
      mailboxId,
      category,
      ...record,
      share: record.reviewed === 0 ? 0 : record.unchanged / record.reviewed,
      lower: judged.lower,
      upper: judged.upper,
      replay: replay
        ? {
            runs: countedRuns(replay),
            reviewed: replay.reviewed,
            unchanged: replay.unchanged,
            countedReviewed: judged.counted.reviewed,
            countedUnchanged: judged.counted.unchanged,
            countedShare: judged.share,
            evidence: judged.evidence ?? describeReplay(replay),
          }
        : null,
      minReviewed: bars.minReviewed,
      recordSize: bars.recordSize,
      minShare: bars.minUnchangedShare,
      state: categoryState(policy, mailboxId, category, record, sw.on, replay),
      lastDemotedAt: standings.get(`${mailboxId}\u0000${category}`)?.lastDemotedAt ?? null,
    });
  }
  categories.sort((a, b) => a.mailboxId.localeCompare(b.mailboxId) || a.category.localeCompare(b.category));
  const pending = (await store.listPending()).map((p) => ({
    emailId: p.emailId,
    draftId: p.draftId,
    mailboxId: p.mailboxId,
    category: p.category,
    sendAfter: p.sendAfter,
    policy: p.policy,
  }));
  return { switch: sw, policy: policy ? policyLabel(policy) : null, categories, pending };
}

/** Turns every automatic send on or off, with an audit row naming who. `by` is required. */
export async function switchAutonomy(deps: { store: AutonomyStore; audit: AuditLog }, on: boolean, by: string): Promise<AutonomySwitch> {
  const who = by.trim();
  if (who === '' || who.length > DECISION_LIMITS.byChars)
    throw new RangeError(`--by must name who switches, 1 to ${DECISION_LIMITS.byChars} characters`);
  const sw = await deps.store.setSwitch(on, who);
  await deps.audit.record({
    emailId: null,
    correlationId: 'autonomy-switch',
    eventType: AUTONOMY_EVENTS.switched,
    actor: who,
    message: `${who} switched autonomy ${on ? 'on' : 'off'}${on ? '' : ': every draft waits for a person'}`,
    details: { on },
  });
  return sw;
}

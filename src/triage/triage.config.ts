/**
 * The triage section of the configuration (src/config.ts assembles the sections): PRIORITY_RULES,
 * OWN_ADDRESSES, TRIAGE_ALLOW, TRIAGE_SPAM_SCORE, TRIAGE_SPAM_FILTER_TRUSTED, TRIAGE_SPAMD,
 * TRIAGE_SPAMD_TIMEOUT_MS, TRIAGE_SPAMD_LEARN.
 */
import { parsePriorityRules, type PriorityRule } from './priority';
import { parseOwnAddresses, parseTriageAllow, type TriageSettings } from './triage';
import { EnvValues, type Env } from '../platform/env-values';
import { DEFAULT_SPAM_FILTER, SPAM_SCORE_RANGE } from './spam-filter-headers';

export interface TriageConfig {
  priorityRules: PriorityRule[];
  /** Intake triage: our own addresses (SMTP_FROM + OWN_ADDRESSES) and TRIAGE_ALLOW rules. */
  triage: TriageSettings;
  /** TRIAGE_SPAMD: a SpamAssassin spamd that intake asks about every message; null: none. */
  spamd: SpamdOptions | null;
}

/** Where spamd listens and how long an answer may take. */
export interface SpamdOptions {
  host: string;
  port: number;
  timeoutMs: number;
  /** TRIAGE_SPAMD_LEARN: a person's release of held spam teaches spamd ham (it must run with --allow-tell). */
  learn: boolean;
}

/** spamd's own default port. */
export const SPAMD_DEFAULT_PORT = 783;
export const DEFAULT_SPAMD_TIMEOUT_MS = 10_000;

/** TRIAGE_SPAMD=`host[:port]` and TRIAGE_SPAMD_TIMEOUT_MS. */
export function readSpamdSettings(env: Env, problems: string[]): SpamdOptions | null {
  const v = new EnvValues(env, problems);
  const timeoutMs = v.intInRange('TRIAGE_SPAMD_TIMEOUT_MS', DEFAULT_SPAMD_TIMEOUT_MS, 100, 120_000);
  const learn = v.boolean('TRIAGE_SPAMD_LEARN', true);
  const raw = v.optional('TRIAGE_SPAMD');
  if (!raw) return null;
  const m = /^(\[[0-9a-f:]+\]|[\w.-]+)(?::(\d{1,5}))?$/i.exec(raw.trim());
  const port = m?.[2] ? Number(m[2]) : SPAMD_DEFAULT_PORT;
  if (!m || port < 1 || port > 65535) {
    problems.push(`TRIAGE_SPAMD must be host or host:port (spamd's address), got "${raw}"`);
    return null;
  }
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port, timeoutMs, learn };
}

/** PRIORITY_RULES, read before the mailboxes: the `default` mailbox carries them. */
export function readPriorityRules(env: Env, problems: string[]): PriorityRule[] {
  const rules = parsePriorityRules(env.PRIORITY_RULES);
  problems.push(...rules.problems);
  return rules.rules;
}

/**
 * OWN_ADDRESSES and TRIAGE_ALLOW. Our own addresses are SMTP_FROM's (`from`), OWN_ADDRESSES and
 * every mailbox's From address (`mailboxFroms`): mail between our own mailboxes is a loop, never a customer.
 */
export function readTriageSettings(env: Env, problems: string[], from: string, mailboxFroms: readonly string[]): TriageSettings {
  const own = parseOwnAddresses(env.OWN_ADDRESSES);
  const allow = parseTriageAllow(env.TRIAGE_ALLOW);
  problems.push(...own.problems, ...allow.problems);
  const ours = [from.toLowerCase(), ...own.addresses, ...mailboxFroms.map((a) => a.toLowerCase()).filter(Boolean)];
  const v = new EnvValues(env, problems);
  const spamFilter = {
    // The score a spam filter's header must reach for the mail to be spam (SpamAssassin's and rspamd's scales).
    threshold: v.numberInRange('TRIAGE_SPAM_SCORE', DEFAULT_SPAM_FILTER.threshold, SPAM_SCORE_RANGE.min, SPAM_SCORE_RANGE.max),
    // Only when the MTA removes these headers from incoming mail and writes its own may "not spam" skip the built-in check.
    trusted: v.boolean('TRIAGE_SPAM_FILTER_TRUSTED', DEFAULT_SPAM_FILTER.trusted),
  };
  return { ownAddresses: [...new Set(ours)], allow: allow.rules, spamFilter };
}

// This feature's section of the whole configuration (src/platform/config.ts).
declare module '../platform/config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the whole configuration
  interface Config extends TriageConfig {}
}

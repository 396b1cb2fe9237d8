/**
 * The triage section of the configuration (src/config.ts assembles the sections): PRIORITY_RULES,
 * OWN_ADDRESSES, TRIAGE_ALLOW, TRIAGE_SPAM_SCORE, TRIAGE_SPAM_FILTER_TRUSTED.
 */
import { parsePriorityRules, type PriorityRule } from './priority';
import { parseOwnAddresses, parseTriageAllow, type TriageSettings } from './triage';
import { EnvValues, type Env } from '../platform/env-values';
import { DEFAULT_SPAM_FILTER, SPAM_SCORE_RANGE } from './spam-filter-headers';

export interface TriageConfig {
  priorityRules: PriorityRule[];
  /** Intake triage: our own addresses (SMTP_FROM + OWN_ADDRESSES) and TRIAGE_ALLOW rules. */
  triage: TriageSettings;
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

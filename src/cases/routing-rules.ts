/**
 * Routing of cases (ROUTING_FILE): ordered rules that give a case a team and/or an owner (an inbox
 * user) from its mailbox, the drafter's category, the language, the priority and the sender's
 * domain. The first rule that matches wins; without a file nothing is routed. A case a person
 * assigned by hand is never routed again (`routed_by` says who did it).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { PRIORITIES, type Priority } from '../triage';
import { ConfigError, errorMessage } from '../platform/errors';
import { anyValue, fields, listOf, unknownFieldProblems, whenObject } from '../platform/config-schema';

export const ROUTING_FILE_VERSION = 1;

export interface RoutingMatch {
  /** Mailbox ids (emails.mailbox_id); any of them. */
  mailbox?: string[];
  /** The drafter's categories (drafts.category), compared case-insensitively. */
  category?: string[];
  /** Language codes of the mail (`de`, `en`, …). */
  language?: string[];
  priority?: Priority[];
  /** `example.com` (exactly that domain) or `*.example.com` (any subdomain of it, not itself). */
  senderDomain?: string[];
}

export interface RoutingRule {
  name: string;
  match: RoutingMatch;
  team: string | null;
  owner: string | null;
}

/** What a case offers to the rules. */
export interface RoutingFacts {
  mailbox: string;
  category?: string | null;
  language?: string | null;
  priority: string;
  /** The correspondent's address; only its domain is compared. */
  sender: string;
}

/** `routed_by` of a case: which rule, or which person, assigned it. */
export const ROUTED_BY = {
  rule: (name: string) => `rule:${name}`,
  person: (name: string) => `person:${name}`,
} as const;

/** Whether a person assigned the case by hand: the rules leave it alone then. */
export function routedByPerson(routedBy: string | null | undefined): boolean {
  return typeof routedBy === 'string' && routedBy.startsWith('person:');
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Team names and inbox user names as stored in cases (VARCHAR(191)), without control characters. */
const LABEL = /^[^\p{Cc}\p{Cf}]{1,191}$/u;
const DOMAIN = /^(\*\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const LANGUAGE = /^[a-z]{2,3}$/;
const MATCH_KEYS = ['mailbox', 'category', 'language', 'priority', 'senderDomain'] as const;

/** Every field a rules file may have, at every level; any other key is refused with its path. */
const ROUTING_SCHEMA = fields({
  version: anyValue,
  rules: listOf(
    fields({
      name: anyValue,
      match: whenObject(fields(Object.fromEntries(MATCH_KEYS.map((k) => [k, anyValue])))),
      team: anyValue,
      owner: anyValue,
    }),
  ),
});

function record(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** A value or a list of values, each a non-empty string; `check` names what is wrong with one. */
function stringList(raw: unknown, where: string, problems: string[], check: (s: string) => string | null): string[] {
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length === 0) problems.push(`${where} must not be an empty list`);
  const out: string[] = [];
  for (const v of list) {
    if (typeof v !== 'string' && typeof v !== 'number') {
      problems.push(`${where} must be a string or a list of strings, got ${JSON.stringify(v)}`);
      continue;
    }
    const s = String(v).trim();
    const bad = check(s);
    if (bad) problems.push(`${where}: ${bad}`);
    else out.push(s);
  }
  return out;
}

function parseMatch(raw: unknown, where: string, problems: string[], mailboxIds?: readonly string[]): RoutingMatch {
  if (raw === undefined || raw === null) return {};
  const o = record(raw);
  if (!o) {
    problems.push(`${where} must be an object`);
    return {};
  }
  const m: RoutingMatch = {};
  if (o.mailbox !== undefined)
    m.mailbox = stringList(o.mailbox, `${where}.mailbox`, problems, (s) =>
      mailboxIds && !mailboxIds.includes(s) ? `mailbox "${s}" is not in the registry (${mailboxIds.join(', ')})` : null,
    );
  if (o.category !== undefined)
    m.category = stringList(o.category, `${where}.category`, problems, (s) => (LABEL.test(s) ? null : `"${s}" is not a category`)).map(
      (s) => s.toLowerCase(),
    );
  if (o.language !== undefined)
    m.language = stringList(o.language, `${where}.language`, problems, (s) =>
      LANGUAGE.test(s.toLowerCase()) ? null : `"${s}" is not a language code such as de or en`,
    ).map((s) => s.toLowerCase());
  if (o.priority !== undefined)
    m.priority = stringList(o.priority, `${where}.priority`, problems, (s) =>
      (PRIORITIES as readonly string[]).includes(s) ? null : `"${s}" is not one of ${PRIORITIES.join(', ')}`,
    ) as Priority[];
  if (o.senderDomain !== undefined)
    m.senderDomain = stringList(o.senderDomain, `${where}.senderDomain`, problems, (s) =>
      DOMAIN.test(s.toLowerCase()) ? null : `"${s}" is not a domain (example.com or *.example.com)`,
    ).map((s) => s.toLowerCase());
  return m;
}

/**
 * Parses a rules file (YAML or JSON, `version: 1`, `rules: [...]`). Throws one ConfigError that
 * lists every problem with the rule it belongs to, so a bad file never half-loads.
 */
export function parseRoutingRules(text: string, source = 'ROUTING_FILE', mailboxIds?: readonly string[]): RoutingRule[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`${source}: not valid YAML or JSON: ${errorMessage(err)}`);
  }
  const root = record(doc);
  if (!root) throw new ConfigError(`${source}: expected an object with "version" and "rules"`);
  const problems: string[] = [];
  problems.push(...unknownFieldProblems(ROUTING_SCHEMA, root));
  if (root.version !== ROUTING_FILE_VERSION) problems.push(`version must be ${ROUTING_FILE_VERSION}, got ${JSON.stringify(root.version)}`);
  if (!Array.isArray(root.rules)) problems.push('rules must be a list');
  const rules: RoutingRule[] = [];
  const names = new Set<string>();
  for (const [i, raw] of (Array.isArray(root.rules) ? root.rules : []).entries()) {
    const where = `rules[${i}]`;
    const o = record(raw);
    if (!o) {
      problems.push(`${where} must be an object`);
      continue;
    }
    const name = typeof o.name === 'string' ? o.name.trim() : '';
    if (!NAME.test(name)) problems.push(`${where}.name must be 1-64 letters, digits, ".", "_" or "-", got ${JSON.stringify(o.name)}`);
    else if (names.has(name)) problems.push(`${where}: name "${name}" is used twice`);
    names.add(name);
    const label = (key: 'team' | 'owner'): string | null => {
      const v = o[key];
      if (v === undefined || v === null) return null;
      if (typeof v !== 'string' || !LABEL.test(v.trim())) {
        problems.push(`${where}.${key} must be a name of 1-191 characters, got ${JSON.stringify(v)}`);
        return null;
      }
      return v.trim();
    };
    const team = label('team');
    const owner = label('owner');
    if (o.team == null && o.owner == null) problems.push(`${where} assigns nothing: give it a team, an owner or both`);
    rules.push({ name, match: parseMatch(o.match, `${where}.match`, problems, mailboxIds), team, owner });
  }
  if (problems.length > 0) throw new ConfigError(`${source}: ${problems.join('; ')}`);
  return rules;
}

/** Reads ROUTING_FILE; a path is resolved against the working directory. */
export function readRoutingRules(file: string, mailboxIds?: readonly string[]): RoutingRule[] {
  let text: string;
  try {
    text = readFileSync(path.resolve(file), 'utf8');
  } catch (err) {
    throw new ConfigError(`ROUTING_FILE cannot be read: ${errorMessage(err)}`);
  }
  return parseRoutingRules(text, `ROUTING_FILE ${file}`, mailboxIds);
}

function domainMatches(domain: string, patterns: string[]): boolean {
  return patterns.some((p) => (p.startsWith('*.') ? domain.endsWith(p.slice(1)) : domain === p));
}

/** Whether one rule matches: every condition it names must hold (a list: any of its values). */
export function ruleMatches(rule: RoutingRule, facts: RoutingFacts): boolean {
  const m = rule.match;
  const domain = (facts.sender.split('@').pop() ?? '').trim().toLowerCase();
  if (m.mailbox && !m.mailbox.includes(facts.mailbox)) return false;
  if (m.category && !(facts.category && m.category.includes(facts.category.toLowerCase()))) return false;
  if (m.language && !(facts.language && m.language.includes(facts.language.toLowerCase()))) return false;
  if (m.priority && !(m.priority as string[]).includes(facts.priority)) return false;
  if (m.senderDomain && !(domain && domainMatches(domain, m.senderDomain))) return false;
  return true;
}

/** The first rule that matches, or null. */
export function routeFor(rules: readonly RoutingRule[], facts: RoutingFacts): RoutingRule | null {
  return rules.find((r) => ruleMatches(r, facts)) ?? null;
}

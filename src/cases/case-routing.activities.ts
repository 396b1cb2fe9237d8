/**
 * Routing of a case once its draft is ready: the rules of ROUTING_FILE (src/cases/routing-rules.ts) give
 * it a team and/or an owner, unless a person assigned it by hand.
 */
import { PermanentError } from '../platform/errors';
import { routeFor, routedByPerson, type RoutingRule } from './routing-rules';
import type { CaseRouting } from './case-routing.port';

export interface CaseRoutingDeps {
  cases: CaseRouting;
  /** The rules in file order; empty: nothing is routed. */
  rules: readonly RoutingRule[];
}

export interface RouteCaseInput {
  caseId: string;
  /** The drafter's category of the mail whose draft is ready. */
  category?: string;
  /** The language of that mail. */
  language?: string;
}

/** The case's assignment after routing; `rule` names the rule applied now (null: none matched, or a person assigned it). */
export interface RouteCaseResult {
  team: string | null;
  owner: string | null;
  rule: string | null;
}

/** Without deps (cases off) nothing is routed: the activity answers that no rule applied. */
export function createCaseRoutingActivities(deps: CaseRoutingDeps | undefined) {
  return {
    async routeCase(input: RouteCaseInput): Promise<RouteCaseResult> {
      if (!deps) return { team: null, owner: null, rule: null };
      const facts = await deps.cases.facts(input.caseId);
      if (!facts) throw new PermanentError(`there is no case ${input.caseId} to route`);
      const unchanged = { team: facts.team, owner: facts.owner, rule: null };
      if (routedByPerson(facts.routedBy)) return unchanged;
      const rule = routeFor(deps.rules, {
        mailbox: facts.mailboxId,
        category: input.category ?? null,
        language: input.language ?? null,
        priority: facts.priority,
        sender: facts.correspondent,
      });
      // No rule matches: an earlier rule's assignment stays (the case does not fall back to nobody).
      if (!rule) return unchanged;
      const { current } = await deps.cases.applyRule(input.caseId, { name: rule.name, team: rule.team, owner: rule.owner });
      // A person may have assigned it between the read and the write: then their assignment is the answer.
      return routedByPerson(current.routedBy)
        ? { team: current.team, owner: current.owner, rule: null }
        : { team: current.team, owner: current.owner, rule: rule.name };
    },
  };
}

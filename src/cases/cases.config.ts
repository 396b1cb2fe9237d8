/** The cases section of the configuration (src/config.ts assembles the sections): CASES, CASE_WINDOW_DAYS, ROUTING_FILE. */
import { readRoutingRules, type RoutingRule } from './routing-rules';
import { envValues, type Env } from '../platform/env-values';
import { errorMessage } from '../platform/errors';

export interface CasesConfig {
  /**
   * Cases (CASES=on|off, default on): a correspondent's mails are grouped while a case of theirs is
   * open; CASE_WINDOW_DAYS (default 14) is how long after its last activity a case takes new mail
   * of the correspondent, and how long a case waits for the customer before it closes.
   */
  cases: { enabled: boolean; windowDays: number };
  /** ROUTING_FILE: the rules that give cases a team and/or an owner (src/cases/routing-rules.ts); unset: no routing. */
  routing?: { file: string; rules: RoutingRule[] };
}

/** `mailboxIds`: the mailboxes served, which routing rules may name. */
export function readCasesConfig(env: Env, problems: string[], mailboxIds: readonly string[]): CasesConfig {
  const v = envValues(env, problems);
  const config: CasesConfig = { cases: { enabled: v.boolean('CASES', true), windowDays: v.intInRange('CASE_WINDOW_DAYS', 14, 1, 365) } };
  const routingFile = v.optional('ROUTING_FILE');
  if (routingFile) {
    try {
      config.routing = { file: routingFile, rules: readRoutingRules(routingFile, mailboxIds) };
    } catch (err) {
      problems.push(errorMessage(err));
    }
  }
  return config;
}

// This feature's section of the whole configuration (src/platform/config.ts).
declare module '../platform/config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the whole configuration
  interface Config extends CasesConfig {}
}

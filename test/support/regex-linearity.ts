/**
 * What the lint (eslint-plugin-regexp's no-super-linear-backtracking and no-super-linear-move on
 * src/) checks for a regex literal, for the regexes the product builds at run time from word
 * lists or from data, which the lint cannot see: scslre (the analyser under the lint) names each
 * way the pattern can backtrack or move super-linearly. An empty list: linear in the input.
 */
import { analyse } from 'scslre';

export function superLinearReports(re: RegExp): string[] {
  return analyse({ source: re.source, flags: re.flags }).reports.map(
    (r) => `${r.type}${r.exponential ? ' (exponential)' : ''}: repeat ${JSON.stringify(r.character.pick)} in /${re.source.slice(0, 80)}/`,
  );
}

/**
 * How many characters String#indexOf walked over while `run` ran (a search that finds nothing
 * walks to the end): the work of a scan written with indexOf, counted instead of timed.
 */
export function indexOfWalk(run: () => void): number {
  const original = String.prototype.indexOf;
  let walked = 0;
  String.prototype.indexOf = function (this: string, search: string, from?: number): number {
    const at = original.call(this, search, from);
    walked += (at === -1 ? this.length : at) - Math.max(0, Math.min(from ?? 0, this.length));
    return at;
  };
  try {
    run();
  } finally {
    String.prototype.indexOf = original;
  }
  return walked;
}

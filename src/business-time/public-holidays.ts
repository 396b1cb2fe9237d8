import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { ClosedDates } from './business-hours';
import type { HolidayType } from './holiday-region';
import type { PublicHolidaysAnswer, PublicHolidaysRequest } from './public-holidays.date-holidays';

/** Computes the closed dates of regions: in a child process in production, in-process in tests. */
export type ComputePublicHolidays = (req: PublicHolidaysRequest) => PublicHolidaysAnswer;

/** Years computed at once around the year asked: the one before it to four after it. */
const YEARS_BEFORE = 1;
const YEARS_AFTER = 4;
const CHILD_TIMEOUT_MS = 60_000;
/** Far more than every region's days of a few years; a child that writes more is not ours. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/**
 * Runs computePublicHolidays (public-holidays.date-holidays.ts) in a child process of the same
 * node and returns its answer. Measured on Node 24 (docs/performance.md#memory): the library costs
 * the process that loads it 31–38 MB of RSS that stays after its objects are dropped, a worker
 * thread 15 MB that stays after the thread ends, a child that exits nothing; the child takes well
 * under a second, at the worker's start and once for each later window of years.
 */
export function computeInChildProcess(req: PublicHolidaysRequest): PublicHolidaysAnswer {
  // Under tsx the child registers tsx's CommonJS hook itself; built, the .js beside this file runs.
  const script = path.join(__dirname, `public-holidays-process${path.extname(__filename)}`);
  const args = script.endsWith('.ts') ? ['-e', `require('tsx/cjs'); require(${JSON.stringify(script)});`] : [script];
  const run = spawnSync(process.execPath, args, {
    input: JSON.stringify(req),
    encoding: 'utf8',
    timeout: CHILD_TIMEOUT_MS,
    maxBuffer: MAX_ANSWER_BYTES,
  });
  const why =
    run.error?.message ??
    (run.status !== 0 ? `it ended with ${run.status ?? run.signal}: ${errorLine(run.stderr)}` : undefined) ??
    answerProblem(run.stdout);
  if (why) throw new Error(`public holidays could not be computed in a child process (${process.execPath}): ${why}`);
  return JSON.parse(run.stdout) as PublicHolidaysAnswer;
}

/** The error line of a crashed node (`TypeError: …`), not its stack or the version line after it. */
function errorLine(text: string | null): string {
  const lines = (text ?? '').split('\n').map((l) => l.trim());
  const error = lines.find((l) => /^[\w.]*Error\b/.test(l)) ?? lines.filter((l) => l && !/^Node\.js v/.test(l)).pop();
  return (error ?? 'no message').slice(0, 300);
}

function answerProblem(stdout: string): string | undefined {
  try {
    const a = JSON.parse(stdout) as Partial<PublicHolidaysAnswer> | null;
    return a && typeof a.days === 'object' && typeof a.problems === 'object' ? undefined : 'its answer has no days';
  } catch {
    return `its answer is not JSON: ${JSON.stringify(stdout.slice(0, 80))}`;
  }
}

/** The public holidays of the regions in use, computed for a window of years and again for a year outside it. */
export interface PublicHolidays {
  /** Why the library does not know a region, per code; such a region closes no day. */
  problems: Readonly<Record<string, string>>;
  /** The region's closed dates. */
  datesOf(code: string): ClosedDates;
}

/**
 * Computes the regions' days for the years around `year` now (which also checks every code), and
 * the years around any other year the first time a date in it is asked about: a worker that runs
 * into the next year computes that window then. Only the dates are kept. A failed computation
 * throws from `has` (a deadline activity then fails and is retried).
 */
export function loadPublicHolidays(opts: {
  regions: readonly string[];
  types: readonly HolidayType[];
  year: number;
  compute?: ComputePublicHolidays;
}): PublicHolidays {
  const compute = opts.compute ?? computeInChildProcess;
  const dates = new Map<string, Set<string>>();
  const years = new Set<number>();
  let regions = [...new Set(opts.regions)];
  const fill = (year: number): PublicHolidaysAnswer => {
    const [from, to] = [year - YEARS_BEFORE, year + YEARS_AFTER];
    // One year more at the start: a holiday of several days may begin in the year before.
    const answer = compute({ regions, types: [...opts.types], from: from - 1, to });
    for (const [code, list] of Object.entries(answer.days)) {
      const set = dates.get(code) ?? new Set<string>();
      for (const d of list) set.add(d);
      dates.set(code, set);
    }
    for (let y = from; y <= to; y++) years.add(y);
    return answer;
  };
  const problems = regions.length > 0 ? fill(opts.year).problems : {};
  regions = regions.filter((r) => !(r in problems));
  return {
    problems,
    datesOf: (code) => ({
      has(date: string): boolean {
        const year = Number(date.slice(0, 4));
        if (!dates.has(code) || !Number.isInteger(year)) return false;
        if (!years.has(year)) fill(year);
        return dates.get(code)!.has(date);
      },
    }),
  };
}

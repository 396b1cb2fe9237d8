/**
 * `email-rag doctor`'s verdicts: what one check finds, one part of the report, and how the parts
 * add up to the exit code. Pure: the runner and the renderer build on it.
 */
import { DOCTOR_CHECKS, type DoctorCheckName } from './operations.contract';
import { DOCTOR_VERDICTS, type DoctorVerdict } from '../platform/contract';

/** What one check found: a verdict, one line of what it saw and, when not ok, one line of what to do. */
export interface DoctorFinding {
  verdict: DoctorVerdict;
  detail: string;
  fix?: string;
}

/** One line of the report: the part, what was found, and how long the check took. */
export interface DoctorPart extends DoctorFinding {
  check: DoctorCheckName;
  /** The mailbox a mailbox part is about. */
  target?: string;
  ms: number;
}

export interface DoctorReport {
  /** The worst verdict of all parts. */
  verdict: DoctorVerdict;
  counts: Record<DoctorVerdict, number>;
  /** Warnings count as failures for the exit code. */
  strict: boolean;
  exitCode: 0 | 1;
  parts: DoctorPart[];
}

export const ok = (detail: string): DoctorFinding => ({ verdict: DOCTOR_VERDICTS.ok, detail });
export const warn = (detail: string, fix: string): DoctorFinding => ({ verdict: DOCTOR_VERDICTS.warn, detail, fix });
export const fail = (detail: string, fix: string): DoctorFinding => ({ verdict: DOCTOR_VERDICTS.fail, detail, fix });

const RANK: Record<DoctorVerdict, number> = { ok: 0, warn: 1, fail: 2 };

/** The worse of the verdicts; ok for none. */
export function worst(verdicts: Iterable<DoctorVerdict>): DoctorVerdict {
  let found: DoctorVerdict = DOCTOR_VERDICTS.ok;
  for (const v of verdicts) if (RANK[v] > RANK[found]) found = v;
  return found;
}

/** The part's name as the table prints it: `mailbox support`, `database`. */
export function partName(part: Pick<DoctorPart, 'check' | 'target'>): string {
  return part.target === undefined ? part.check : `${part.check} ${part.target}`;
}

const ORDER: readonly DoctorCheckName[] = Object.values(DOCTOR_CHECKS);

/**
 * The report of the parts, in the order of DOCTOR_CHECKS (mailboxes in the order given): exit 1
 * when a part failed, or with `strict` when one warned.
 */
export function doctorReport(parts: DoctorPart[], strict: boolean): DoctorReport {
  const sorted = parts
    .map((part, i) => ({ part, i }))
    .sort((a, b) => ORDER.indexOf(a.part.check) - ORDER.indexOf(b.part.check) || a.i - b.i)
    .map((p) => p.part);
  const counts: Record<DoctorVerdict, number> = { ok: 0, warn: 0, fail: 0 };
  for (const p of sorted) counts[p.verdict] += 1;
  const verdict = worst(sorted.map((p) => p.verdict));
  const failing = verdict === DOCTOR_VERDICTS.fail || (strict && verdict === DOCTOR_VERDICTS.warn);
  return { verdict, counts, strict, exitCode: failing ? 1 : 0, parts: sorted };
}

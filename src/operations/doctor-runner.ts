/**
 * Runs `email-rag doctor`'s checks: all at once (they are independent), each under its own time
 * limit, so one dead server costs its own part a timeout and never holds up the others.
 */
import { errorMessage } from '../platform/errors';
import { fail, type DoctorFinding, type DoctorPart } from './doctor-report';
import type { DoctorCheckName } from './operations.contract';

/** One check of the list. */
export interface DoctorCheck {
  check: DoctorCheckName;
  target?: string;
  /** How long the check may take before its part fails with `fix`. */
  timeoutMs: number;
  /** What to do when the check throws or does not answer in time. */
  fix: string;
  run(): Promise<DoctorFinding>;
}

/** Resolves with the finding, or with a failure when the check throws or outlasts its time limit. */
async function runOne(check: DoctorCheck): Promise<DoctorPart> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<DoctorFinding>((resolve) => {
    timer = setTimeout(() => resolve(fail(`no answer within ${limit(check.timeoutMs)}`, check.fix)), check.timeoutMs);
  });
  let finding: DoctorFinding;
  try {
    finding = await Promise.race([check.run().catch((err: unknown) => fail(firstLine(errorMessage(err)), check.fix)), timeout]);
  } finally {
    clearTimeout(timer);
  }
  return {
    check: check.check,
    ...(check.target === undefined ? {} : { target: check.target }),
    ...finding,
    ms: Math.round(performance.now() - started),
  };
}

function limit(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 1_000)} s`;
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '') ?? text;
}

/** Every check at once; the parts in the order of the checks. */
export function runChecks(checks: readonly DoctorCheck[]): Promise<DoctorPart[]> {
  return Promise.all(checks.map(runOne));
}

/**
 * Readiness: every dependency of a process asked at once, each within a short timeout, and one
 * answer that names each dependency's state and, when it is not ready, the reason. Shared by the
 * review inbox, the codec server and the worker's health server.
 */
import { errorMessage } from '../platform/errors';
import { HEALTH_STATES, READINESS_TIMEOUT_MS, READY_STATES, type HealthDependency, type HealthState } from './operations.contract';

/** One line of a readiness body. */
export interface HealthCheck {
  dependency: HealthDependency;
  /** Which one, where a process has several (a mailbox's `id/folder`). */
  target?: string;
  state: HealthState;
  /** Why it is not ready (or, for `paused`, why nothing is expected); absent when `ok`. */
  reason?: string;
}

/** What `/readyz` answers: 200 with `ready: true`, or 503. */
export interface ReadinessReport {
  ready: boolean;
  checks: HealthCheck[];
}

/** Asks one dependency; throws (or takes too long) when it does not answer. */
export interface ReadinessProbe {
  dependency: HealthDependency;
  /** Where it is asked (`MariaDB at db:3306/email_rag`), put before the reason when it fails or times out. */
  where?: string;
  /** One check, or several (one per mailbox folder); resolving without a state means `ok`. */
  run(timeoutMs: number): Promise<Omit<HealthCheck, 'dependency'>[] | void>;
}

const firstLine = (err: unknown): string => errorMessage(err).split('\n')[0]!.slice(0, 500);

async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs every probe concurrently, each cut off after `timeoutMs` (so the whole answer takes about
 * that long at most, whatever hangs). A probe that throws is `failing` with its error's first line.
 */
export async function checkReadiness(probes: readonly ReadinessProbe[], timeoutMs = READINESS_TIMEOUT_MS): Promise<ReadinessReport> {
  const results = await Promise.all(
    probes.map(async (probe): Promise<HealthCheck[]> => {
      try {
        // The probe's own deadline comes first, so its error (DEADLINE_EXCEEDED, UNAVAILABLE, …) is the reason given.
        const found = await within(timeoutMs, probe.run(Math.floor(timeoutMs * 0.75)));
        if (!found || found.length === 0) return [{ dependency: probe.dependency, state: HEALTH_STATES.ok }];
        return found.map((c) => ({ dependency: probe.dependency, ...c }));
      } catch (err) {
        const reason = probe.where ? `${probe.where}: ${firstLine(err)}` : firstLine(err);
        return [{ dependency: probe.dependency, state: HEALTH_STATES.failing, reason }];
      }
    }),
  );
  const checks = results.flat();
  return { ready: checks.every((c) => READY_STATES.includes(c.state)), checks };
}

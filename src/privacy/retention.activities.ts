/**
 * The retention purge (RETENTION_*): removes what has expired, kind by kind, in batches. Each
 * batch is its own transaction and picks what is expired now, so a purge stopped anywhere (a
 * worker restart, the time budget) loses nothing and the next run simply continues.
 */
import { Context } from '@temporalio/activity';
import { PRIVACY_EVENTS } from './privacy.contract';
import type { RetentionSettings } from './privacy.config';
import type { RetentionKind, RetentionStore } from './retention-store.port';
import type { AuditLog } from '../platform/store.port';
import type { VectorIndex } from '../retrieval';

export interface RetentionDeps {
  store: RetentionStore;
  settings: RetentionSettings;
  /** Expired passages are forgotten in every index (full text, vectors, graph). */
  index: Pick<VectorIndex, 'forgetEmails'>;
  audit: AuditLog;
  now?: () => Date;
  /** Called between batches (a Temporal heartbeat in the worker). */
  heartbeat?: (details: unknown) => void;
  /** Pause between batches, so a purge leaves room for the pipeline's own writes (default 100 ms). */
  pauseMs?: number;
}

export interface PurgeInput {
  batchSize: number;
  dryRun: boolean;
  /** Stop starting new batches after this long; `more` says whether anything is left. */
  budgetMs: number;
}

export interface PurgeResult {
  purged: Record<string, number>;
  more: boolean;
}

const DAY_MS = 86_400_000;
const MAX_BATCH = 10_000;

const KINDS: Array<{ kind: RetentionKind; days: keyof RetentionSettings }> = [
  { kind: 'raw_mail', days: 'rawMailDays' },
  { kind: 'bodies', days: 'bodiesDays' },
  // Replayed mail (src/replay/) is kept as long as the bodies of emails, counted from its run's start.
  { kind: 'replay', days: 'bodiesDays' },
  { kind: 'passages', days: 'passagesDays' },
  { kind: 'audit', days: 'auditDays' },
  { kind: 'access_log', days: 'accessLogDays' },
];

export type RetentionActivities = ReturnType<typeof createRetentionActivities>;

export function createRetentionActivities(deps: RetentionDeps | undefined) {
  return {
    async purgeExpired(input: PurgeInput): Promise<PurgeResult> {
      if (!deps) return { purged: {}, more: false };
      const batch = Math.max(1, Math.min(Math.floor(input.batchSize) || 1, MAX_BATCH));
      const now = (deps.now ?? (() => new Date()))();
      const until = Date.now() + Math.max(0, input.budgetMs);
      const pause = deps.pauseMs ?? 100;
      const purged: Record<string, number> = {};
      let more = false;
      for (const { kind, days } of KINDS) {
        const keep = deps.settings[days];
        if (keep === 0) continue;
        const cutoff = new Date(now.getTime() - keep * DAY_MS);
        if (input.dryRun) {
          purged[kind] = await deps.store.countExpired(kind, cutoff);
          continue;
        }
        purged[kind] = 0;
        for (;;) {
          if (Date.now() >= until) {
            more = true;
            break;
          }
          const n = await purgeOne(deps, kind, cutoff, batch);
          purged[kind] += n;
          (deps.heartbeat ?? activityHeartbeat)({ kind, purged: purged[kind] });
          if (n < batch) break;
          await new Promise((r) => setTimeout(r, pause));
        }
        if (more) break;
      }
      const total = Object.values(purged).reduce((a, b) => a + b, 0);
      if (!input.dryRun && total > 0) {
        await deps.audit.record({
          emailId: null,
          correlationId: `retention-${now.toISOString().slice(0, 10)}`,
          eventType: PRIVACY_EVENTS.purged,
          message: `retention purge: ${Object.entries(purged)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ')}${more ? ' (more left for the next run)' : ''}`,
          details: { ...purged, more },
        });
      }
      return { purged, more };
    },
  };
}

/** Inside a worker: a heartbeat, so a long purge is not taken for a lost one. Outside (the CLI): nothing. */
function activityHeartbeat(details: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // Not in an activity.
  }
}

async function purgeOne(deps: RetentionDeps, kind: RetentionKind, cutoff: Date, batch: number): Promise<number> {
  if (kind !== 'passages') return deps.store.purgeBatch(kind, cutoff, batch);
  const ids = await deps.store.expiredPassageSources(cutoff, batch);
  if (ids.length > 0) await deps.index.forgetEmails?.(ids);
  return ids.length;
}

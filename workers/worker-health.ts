/**
 * The worker's health server (HEALTH_PORT): liveness from its Temporal Workers' states, readiness
 * from them, MariaDB, the Temporal namespace and each enabled mailbox's last successful poll.
 */
import { performance } from 'node:perf_hooks';
import type { Config } from '../src/config';
import { checkReadiness, mailboxPollProbe, workerLiveness, workerStateProbe } from '../src/operations';
import {
  createMariaDbPollAges,
  databaseProbe,
  startHealthServer,
  temporalNamespaceProbe,
  temporalPollSchedules,
  type RunningHealthServer,
} from '../src/operations/index.adapters';
import { errorMessage } from '../src/platform/errors';
import { createLogger } from '../src/platform/logger';
import { createPool } from '../src/platform/pool.mariadb';
import type { RunningWorker } from './email-worker';

const logger = createLogger('worker');

/**
 * Starts the server when HEALTH_PORT is set (undefined otherwise). Its own pool of one connection:
 * a worker whose activities hold every connection of theirs can still say the database answers.
 * `startedAt` (performance.now() at the worker's start) is when mailboxes begin to count as `starting`.
 */
export async function startWorkerHealth(
  config: Config,
  running: Pick<RunningWorker, 'client' | 'states'>,
  startedAt = performance.now(),
): Promise<RunningHealthServer | undefined> {
  if (!config.health) return undefined;
  const pool = createPool(config.databaseUrl, 1, 2_000);
  const probes = [
    workerStateProbe(running.states),
    databaseProbe(pool, config.databaseUrl),
    temporalNamespaceProbe(running.client.connection, config.temporal),
    mailboxPollProbe({
      mailboxes: config.mailboxes,
      pollAges: createMariaDbPollAges(pool),
      uptimeSeconds: () => (performance.now() - startedAt) / 1000,
      pollSchedule: temporalPollSchedules(running.client),
    }),
  ];
  let server: RunningHealthServer;
  try {
    server = await startHealthServer({
      host: config.health.host,
      port: config.health.port,
      liveness: () => workerLiveness(running.states()),
      readiness: () => checkReadiness(probes),
      onError: (err) => logger.error('readiness check failed', { error: errorMessage(err) }),
    });
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new Error(
      `cannot listen on ${config.health.host}:${config.health.port} for the health server: ${errorMessage(err)} (set HEALTH_PORT)`,
      {
        cause: err,
      },
    );
  }
  return {
    url: server.url,
    async close() {
      await server.close();
      await pool.end().catch(() => undefined);
    },
  };
}

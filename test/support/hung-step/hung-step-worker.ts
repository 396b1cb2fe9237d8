/**
 * An activity worker process for test/e2e/hung-step.e2e.test.ts, with the product's queue
 * interceptor over the real MariaDB ledger and audit log. Its one activity is a TEST STAND-IN
 * under a planned activity type (`pollMailbox`, a queue step): `hang` never returns (the
 * interceptor's heartbeat timer keeps running: a live worker), `hang-first` hangs on attempt 1
 * (the test kills this process then) and returns on later attempts.
 * Environment: TEMPORAL_ADDRESS, DATABASE_URL, TASK_QUEUE.
 */
import { activityInfo } from '@temporalio/activity';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createPool } from '../../../src/platform/pool.mariadb';
import { createMariaDbJobLedger } from '../../../src/platform/job-ledger.mariadb';
import { createMariaDbAuditLog } from '../../../src/platform/audit-log.mariadb';
import { createQueueInterceptor } from '../../../workers/queue-interceptor';

async function main(): Promise<void> {
  const pool = createPool(process.env.DATABASE_URL!, 2);
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await Worker.create({
    connection,
    taskQueue: process.env.TASK_QUEUE!,
    activities: {
      async pollMailbox(input: { emailId: string; mode: string }): Promise<string> {
        if (input.mode === 'hang' || activityInfo().attempt === 1) await new Promise<never>(() => undefined);
        return `done on attempt ${activityInfo().attempt}`;
      },
    },
    interceptors: { activity: [createQueueInterceptor(createMariaDbJobLedger(pool), createMariaDbAuditLog(pool))] },
  });
  console.log('worker ready');
  await worker.run();
  await pool.end();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

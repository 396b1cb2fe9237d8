import type { WorkerDeploymentOptions } from '@temporalio/worker';
import type { Config } from '../src/config';

/**
 * The Worker Deployment Version this worker process belongs to (WORKER_DEPLOYMENT_NAME and
 * WORKER_BUILD_ID), or undefined for an unversioned worker.
 *
 * Every workflow type is PINNED: an email's run ends on the build that started it, however many
 * builds are deployed while it waits for approval, so its history never meets foreign workflow
 * code. The poll and the cleanup runs are pinned too: they are short, and a poll that continues as
 * new stays on its build only until the mailbox has caught up; the old build runs anyway until its
 * emails are decided. The behaviour is the worker's, not declared per workflow type, because the
 * server refuses a declared behaviour from an unversioned worker (test/e2e/worker-versioning).
 *
 * All the process's workers (the workflow queue and the activity pools) carry the same version, so
 * the activities a pinned run schedules are served by the same build as well.
 */
export function workerDeploymentOptions(deployment: Config['worker']['deployment']): WorkerDeploymentOptions | undefined {
  if (!deployment) return undefined;
  return {
    useWorkerVersioning: true,
    version: { deploymentName: deployment.name, buildId: deployment.buildId },
    defaultVersioningBehavior: 'PINNED',
  };
}

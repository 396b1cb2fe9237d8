import type { WorkerDeploymentOptions } from '@temporalio/worker';
import type { Config } from '../lib/config';

/**
 * The Worker Deployment Version this worker process belongs to (WORKER_DEPLOYMENT_NAME and
 * WORKER_BUILD_ID), or undefined for an unversioned worker.
 *
 * Every workflow type is PINNED unless its module says otherwise (workflows/versioning-behaviour.ts):
 * an email's run then ends on the build that started it, however many builds are deployed while it
 * waits for approval, so its history never meets foreign workflow code. All the process's workers
 * (the workflow queue and the activity pools) carry the same version, so the activities a pinned
 * run schedules are served by the same build as well.
 */
export function workerDeploymentOptions(deployment: Config['worker']['deployment']): WorkerDeploymentOptions | undefined {
  if (!deployment) return undefined;
  return {
    useWorkerVersioning: true,
    version: { deploymentName: deployment.name, buildId: deployment.buildId },
    defaultVersioningBehavior: 'PINNED',
  };
}

/**
 * Versioning behaviour per workflow type, for workers that run as a Worker Deployment Version
 * (WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID; workers/worker-deployment.ts). Unversioned workers
 * ignore it.
 *
 * The worker's default is PINNED: an email's run, and the short cleanup runs, end on the build
 * that started them. The poll is the exception: its run continues as new while a mailbox has more
 * mail, and a pinned run's successor stays on the same build, so a pinned poll chain would keep
 * an old build busy after the switch. AUTO_UPGRADE moves it to the current build at its next
 * workflow task; a change to the poll workflow must therefore still replay the last release's
 * `poll-` histories (docs/changing-workflows.md).
 */
import { setWorkflowOptions } from '@temporalio/workflow';
import { ImapPollWorkflow } from './imap-poll-workflow';

setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, ImapPollWorkflow);

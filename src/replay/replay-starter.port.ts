import type { ReplayProgress, ReplayWorkflowInput } from './replay.workflow';

/** Starts, awaits and stops a run's ReplayWorkflow. */
export interface ReplayStarter {
  start(input: ReplayWorkflowInput): Promise<void>;
  /** Waits for the run to end and returns its last progress. */
  result(runId: string): Promise<ReplayProgress>;
  /** Where the running workflow stands (its query); null when it has ended or never ran. */
  progress(runId: string): Promise<ReplayProgress | null>;
  /** Ends a run that is still going (before its rows are deleted); nothing when it has ended. */
  stop(runId: string, reason: string): Promise<void>;
}

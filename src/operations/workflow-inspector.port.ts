/** What Temporal says about an activity that the queue table believes is running. */
export type ActivityLiveness =
  | { kind: 'closed' }
  | { kind: 'not-pending' }
  | { kind: 'running'; lastHeartbeat: Date | null }
  | { kind: 'waiting-to-retry'; nextAttemptAt: Date | null };

/** Asks Temporal whether a workflow's activity really runs (to reconcile stuck queue rows). */
export interface WorkflowInspector {
  activity(workflowId: string, activityId: string): Promise<ActivityLiveness>;
}

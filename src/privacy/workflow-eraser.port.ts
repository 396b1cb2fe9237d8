/** What an erasure did to the workflow executions of one person's emails and cases. */
export interface WorkflowErasure {
  /** Executions deleted (every run of each id). */
  deleted: number;
  /** Of those, running ones terminated first. */
  terminated: number;
  /** Ids with no execution (never started, or deleted by an earlier run or by namespace retention). */
  missing: number;
}

/** Removes workflow executions and their histories, which hold (encrypted) personal data. */
export interface WorkflowEraser {
  /** Deletes every run of these ids, running ones included (the server terminates them). Idempotent. */
  erase(workflowIds: string[]): Promise<WorkflowErasure>;
}

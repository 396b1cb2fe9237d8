import type { Client } from '@temporalio/client';
import { stateQuery } from '../../src/email/email.workflow';

/**
 * The draft id a decision on this email must name now (what a reviewer reads first). The draft step
 * writes `awaiting_approval` to MariaDB itself, a moment before the workflow takes the draft in with
 * its next task: a test that saw the row waits here for the workflow to catch up.
 */
export async function currentDraftId(client: Client, workflowId: string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const w = (await client.workflow.getHandle(workflowId).query(stateQuery)).waitingFor;
    if (w && 'draftId' in w) return w.draftId;
    if (Date.now() >= deadline) throw new Error(`${workflowId} waits for no decision on a draft`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

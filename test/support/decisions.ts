import type { Client } from '@temporalio/client';
import { stateQuery } from '../../workflows/email-workflow';

/** The draft id a decision on this email must name now (what a reviewer reads first). */
export async function currentDraftId(client: Client, workflowId: string): Promise<string> {
  const w = (await client.workflow.getHandle(workflowId).query(stateQuery)).waitingFor;
  if (!w || !('draftId' in w)) throw new Error(`${workflowId} waits for no decision on a draft`);
  return w.draftId;
}

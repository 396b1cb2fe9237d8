/**
 * What one workflow costs the Temporal server: the events in its history by type (every event
 * is a write of the history shard; upserts are also visibility writes), and when the poll started
 * the batch's workflows (a poll that starts them one by one spreads them over seconds).
 */
import fs from 'node:fs';
import type { Client } from '@temporalio/client';

export interface HistoryShape {
  workflowId: string;
  events: number;
  /** Event type (without the EVENT_TYPE_ prefix) → how many. */
  byType: Record<string, number>;
  /** The events in order, short names (for reading, not for parsing). */
  sequence: string[];
}

export async function historyShape(client: Client, workflowId: string): Promise<HistoryShape> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const byType: Record<string, number> = {};
  const sequence: string[] = [];
  for (const e of history.events ?? []) {
    const name = typeName(e.eventType);
    byType[name] = (byType[name] ?? 0) + 1;
    const detail =
      e.activityTaskScheduledEventAttributes?.activityType?.name ??
      e.markerRecordedEventAttributes?.markerName ??
      (e.upsertWorkflowSearchAttributesEventAttributes
        ? Object.keys(e.upsertWorkflowSearchAttributesEventAttributes.searchAttributes?.indexedFields ?? {}).join('+')
        : undefined);
    sequence.push(detail ? `${name.toLowerCase()}(${detail})` : name.toLowerCase());
  }
  return { workflowId, events: history.events?.length ?? 0, byType, sequence };
}

// The protobuf enum arrives as a number; its names are on the generated enum object.
function typeName(t: unknown): string {
  if (typeof t === 'string') return t.replace(/^EVENT_TYPE_/, '');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { temporal } = require('@temporalio/proto') as { temporal: { api: { enums: { v1: { EventType: Record<number, string> } } } } };
  return (temporal.api.enums.v1.EventType[Number(t)] ?? String(t)).replace(/^EVENT_TYPE_/, '');
}

/** Start times of the given workflows relative to `t0`: first and last (ms). */
export async function startSpread(client: Client, ids: string[], t0: number): Promise<{ firstMs: number; lastMs: number } | null> {
  const want = new Set(ids);
  const starts: number[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowType = "EmailWorkflow"` })) {
    if (want.has(wf.workflowId)) starts.push(wf.startTime.getTime() - t0);
  }
  if (starts.length === 0) return null;
  return { firstMs: Math.min(...starts), lastMs: Math.max(...starts) };
}

/** CPU seconds of a process and all its descendants (the children that ended included, once reaped). */
export function treeCpu(pid: number): number {
  const children = new Map<number, number[]>();
  const own = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(f[1]);
      own.set(Number(entry), (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone
    }
  }
  let total = 0;
  const walk = (p: number): void => {
    total += own.get(p) ?? 0;
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return total;
}

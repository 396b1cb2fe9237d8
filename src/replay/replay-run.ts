/**
 * Prepares a replay run: reads the archive, pairs customer mail with the team's replies, keeps
 * what the drafts may draw on (the paired correspondents' mail, nobody else's) in the replay's own
 * tables, and records the run. Starting its workflow is the caller's (the CLI's) next step.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import type { AuditLog } from '../platform/store.port';
import { readArchiveMails } from './replay-archive';
import { pairArchive, type ArchiveMail } from './replay-pairing';
import { REPLAY_AUDIT_EVENTS, REPLAY_DIRECTION } from './replay.contract';
import type { ReplayMessageRow, ReplayStore } from './replay-store.port';

export interface PrepareInput {
  archive: string;
  mailboxId: string;
  /** Every address whose mail is the team's (lower or any case): the mailbox's From and `--team`. */
  team: string[];
  /** Only the newest N pairs; undefined: all. */
  limit?: number;
  maxBytes: number;
  by: string;
}

export interface PreparedRun {
  runId: string;
  read: number;
  skipped: number;
  customerMails: number;
  teamMails: number;
  unanswered: number;
  pairs: number;
  /** Messages kept for the run: the pairs and their correspondents' other mail. */
  stored: number;
}

export function newRunId(now = new Date()): string {
  return `${now.toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(4).toString('hex')}`;
}

export async function prepareReplay(deps: { store: ReplayStore; audit: AuditLog }, input: PrepareInput): Promise<PreparedRun> {
  const { mails, read, skipped } = await readArchiveMails(input.archive, input.maxBytes);
  const team = [...new Set(input.team.map((a) => a.trim().toLowerCase()).filter(Boolean))];
  const pairing = pairArchive(mails, team);
  // The newest pairs: how the team answers now is what switching on would meet.
  const pairs = input.limit !== undefined ? pairing.pairs.slice(-input.limit) : pairing.pairs;
  const correspondents = new Set(pairs.map((p) => pairing.correspondentOf.get(p.customer.key)!));
  const teamSet = new Set(team);
  const row = (m: ArchiveMail): ReplayMessageRow | null => {
    const correspondent = pairing.correspondentOf.get(m.key);
    if (!correspondent || !correspondents.has(correspondent)) return null;
    return {
      key: m.key,
      threadKey: pairing.threadOf.get(m.key)!,
      direction: teamSet.has(m.from.address.toLowerCase()) ? REPLAY_DIRECTION.team : REPLAY_DIRECTION.customer,
      correspondent,
      fromAddress: m.from.address.toLowerCase(),
      fromName: m.from.name,
      sentAt: m.date,
      subject: m.subject,
      body: m.text,
    };
  };
  const messages = mails.map(row).filter((r): r is ReplayMessageRow => r !== null);
  const runId = newRunId();
  await deps.store.createRun(
    {
      id: runId,
      mailboxId: input.mailboxId,
      archiveName: path.basename(path.resolve(input.archive)).slice(0, 255),
      teamAddresses: team,
      messages: messages.length,
      customerMails: pairing.customerMails,
      pairs: pairs.length,
      createdBy: input.by,
    },
    messages,
    pairs.map((p) => ({
      pairId: p.customer.key,
      replyKey: p.reply.key,
      correspondent: pairing.correspondentOf.get(p.customer.key)!,
      customerAt: p.customer.date,
    })),
  );
  const counts = { read, skipped, customerMails: pairing.customerMails, unanswered: pairing.unanswered, pairs: pairs.length };
  await deps.audit.record({
    emailId: null,
    correlationId: `replay-${runId}`,
    eventType: REPLAY_AUDIT_EVENTS.started,
    actor: input.by,
    message: `replay ${runId} of mailbox ${input.mailboxId}: ${pairs.length} pairs from ${read} messages`,
    details: counts,
    eventKey: `replay-${runId}:${REPLAY_AUDIT_EVENTS.started}`,
  });
  return { runId, ...counts, teamMails: pairing.teamMails, stored: messages.length };
}

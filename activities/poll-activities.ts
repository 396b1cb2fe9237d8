import { Context } from '@temporalio/activity';
import { imapEmailId } from '../lib/domain';
import { correlationId } from './context';
import type { ActivityDeps } from './deps';

export interface PollResult {
  mailbox: string;
  uidValidity: number;
  started: string[];
  existing: string[];
  backlog: number;
  watermark: number;
}

/**
 * Reads new UIDs above the watermark and starts one EmailWorkflow each. Idempotent: the workflow
 * id is derived from mailbox + UIDVALIDITY + UID, so overlapping polls or a lost watermark write
 * start nothing twice.
 */
export function createPollActivities(deps: Pick<ActivityDeps, 'mailbox' | 'watermarks' | 'starter' | 'audit' | 'messages' | 'settings'>) {
  return {
    async pollMailbox(input: { mailbox?: string }): Promise<PollResult> {
      const { settings } = deps;
      const mailbox = input.mailbox ?? settings.mailbox;
      const cid = correlationId();
      let mark = await deps.watermarks.get(settings.account, mailbox);
      let listing = await deps.mailbox.listSince(mailbox, mark?.lastUid ?? 0, settings.pollBatchSize);
      if (!mark || mark.uidValidity !== listing.uidValidity) {
        // First connection, or the mailbox was recreated (old UIDs mean nothing). What is there now
        // is history: skipped by default, or imported but never answered with IMAP_IMPORT_HISTORY.
        mark = {
          uidValidity: listing.uidValidity,
          lastUid: settings.importHistory ? 0 : listing.highestUid,
          historyUntilUid: listing.highestUid,
        };
        await deps.watermarks.advance(settings.account, mailbox, mark);
        await deps.audit.record({
          emailId: null,
          correlationId: cid,
          eventType: 'mailbox_connected',
          message:
            `${mailbox} connected (UIDVALIDITY ${listing.uidValidity}) with ${listing.highestUid > 0 ? `mail up to UID ${listing.highestUid}` : 'no mail'}; ` +
            (settings.importHistory ? 'existing mail is imported as history, not answered' : 'existing mail is left alone'),
          details: { uidValidity: listing.uidValidity, highestUid: listing.highestUid, importHistory: settings.importHistory },
        });
        listing = await deps.mailbox.listSince(mailbox, mark.lastUid, settings.pollBatchSize);
      }
      const started: string[] = [];
      const existing: string[] = [];
      let last = mark.lastUid;
      for (const msg of listing.messages) {
        const emailId = imapEmailId(settings.account, mailbox, listing.uidValidity, msg.uid);
        const outcome = await deps.starter.startEmail(
          {
            emailId,
            source: { kind: 'imap', mailbox, uidValidity: listing.uidValidity, uid: msg.uid },
            historyOnly: msg.uid <= mark.historyUntilUid,
          },
          'normal',
        );
        (outcome === 'started' ? started : existing).push(emailId);
        last = msg.uid;
        Context.current().heartbeat(msg.uid);
      }
      if (last > mark.lastUid) await deps.watermarks.advance(settings.account, mailbox, { ...mark, lastUid: last });
      return {
        mailbox,
        uidValidity: listing.uidValidity,
        started,
        existing,
        backlog: await deps.messages.countUnfinished(),
        watermark: last,
      };
    },
  };
}

import type { Client } from '@temporalio/client';
import { ImapFlow } from 'imapflow';
import { createTemporalStarter, starterLimits } from '../../../src/email/workflow-starter.temporal';
import type { Config } from '../../../src/config';
import { imapEmailId } from '../../../src/email/email-input';
import { type Priority } from '../../../src/triage/priorities';

export interface AppendedMessage {
  uidValidity: number;
  uid: number;
}

/** Appends messages to the configured mailbox over IMAP, one connection for all of them. */
export async function appendMessages(config: Config, raws: Array<string | Buffer>): Promise<AppendedMessage[]> {
  const c = new ImapFlow({
    host: config.imap.host,
    port: config.imap.port,
    secure: config.imap.tls,
    auth: { user: config.imap.user, pass: config.imap.password },
    logger: false,
  });
  await c.connect();
  try {
    const out: AppendedMessage[] = [];
    for (const raw of raws) {
      const appended = await c.append(config.imap.folder, raw);
      if (!appended || !appended.uid) throw new Error('IMAP APPEND returned no UID');
      out.push({ uidValidity: Number(appended.uidValidity), uid: appended.uid });
    }
    return out;
  } finally {
    await c.logout();
  }
}

/**
 * Starts the EmailWorkflow of one IMAP message with the product's starter, as the poll does for
 * each new UID; returns the workflow id (the email id).
 */
export async function startImapEmail(client: Client, config: Config, msg: AppendedMessage, priority: Priority = 'normal'): Promise<string> {
  const { folder: mailbox } = config.imap;
  const emailId = imapEmailId(config.imap.user, mailbox, msg.uidValidity, msg.uid);
  const starter = createTemporalStarter(client, config.temporal.taskQueue, starterLimits(config));
  await starter.startEmail({ emailId, source: { kind: 'imap', mailbox, uidValidity: msg.uidValidity, uid: msg.uid }, priority }, priority);
  return emailId;
}

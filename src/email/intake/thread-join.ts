import { createHash } from 'node:crypto';
import { normaliseAddress, organisationDomain } from '../../retrieval';
import type { ParsedEmail } from '../email-stores.port';
import type { EmailDeps } from '../email-deps';
import { correlationId } from '../../platform/activity-context';
import { ourAddresses } from '../../mailboxes';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';

/** The thread of an email refused elsewhere: named after its workflow id, which no header can forge. */
export function ownThreadId(emailId: string): string {
  return `thread-${createHash('sha256').update(`own\u0000${emailId}`).digest('hex').slice(0, 32)}`;
}

/**
 * Decides which thread an email belongs to. Its In-Reply-To / References (or, for a first
 * message, its own Message-ID) name a thread; a Message-ID is no secret (it travels in every
 * reply and forward, and anyone can write any of them into a header), so naming a thread proves
 * nothing. An email joins a thread that already has mail only if its sender took part in it
 * (sent, received or was answered), or, when THREAD_JOIN_ORGANISATION is on, belongs to the
 * organisation of someone who did. Otherwise it starts its own thread, and the audit log says why.
 */
export async function joinThread(
  deps: Pick<EmailDeps, 'messages' | 'audit' | 'settings' | 'mailboxes'>,
  emailId: string,
  parsed: Pick<ParsedEmail, 'references' | 'inReplyTo' | 'from' | 'replyTo' | 'threadId'>,
  /** The isolation account of the email's mailbox (src/mailboxes/mailbox-scope.ts): threads stay within it. */
  account: string,
): Promise<string> {
  const ids = [...parsed.references, ...(parsed.inReplyTo ? [parsed.inReplyTo] : [])];
  // A known message among the references names its thread; else the parser's name (the root
  // reference, or the email's own Message-ID), which may still be an existing thread's.
  const known = (await deps.messages.findThreadId(ids, account)) ?? parsed.threadId;
  const members = await deps.messages.threadParticipants(known, account);
  if (members.length === 0) return known;

  // Our own addresses (every mailbox's) are in every thread; they vouch for no one.
  const ours = new Set([...ourAddresses(deps), ...deps.settings.triage.ownAddresses, account].map(normaliseAddress));
  const participants = members.filter((a) => !ours.has(a));
  // The sender and, when it differs, the Reply-To address (the draft goes there, with the
  // thread as context) must both qualify: a spoofed From alone must not open a thread.
  const addresses = [
    ...new Set([parsed.from?.address, parsed.replyTo?.address].filter((a): a is string => Boolean(a)).map(normaliseAddress)),
  ];
  const refusal = (address: string): string | null => {
    if (ours.has(address)) return `${address} is our own address`;
    if (participants.includes(address)) return null;
    const domain = organisationDomain(address);
    const colleague = domain !== null && participants.some((a) => organisationDomain(a) === domain);
    if (colleague && deps.settings.threadJoinOrganisation) return null;
    return colleague
      ? `${address} did not take part in it (a colleague did, but THREAD_JOIN_ORGANISATION is off)`
      : `${address} did not take part in it`;
  };
  const reasons = addresses.map(refusal).filter((r): r is string => r !== null);
  if (addresses.length > 0 && reasons.length === 0) return known;
  const why = addresses.length === 0 ? 'the email names no sender' : reasons.join('; ');
  const sender = addresses[0] ?? '';
  const cid = correlationId();
  await deps.audit.record({
    emailId,
    correlationId: cid,
    eventType: EMAIL_AUDIT_EVENTS.threadJoinRefused,
    errorClass: null,
    message: `not joined to thread ${known} that its headers point at: ${why}; it starts its own thread`,
    details: { thread: known, sender, references: ids.slice(-20) },
    eventKey: `${cid}:${EMAIL_AUDIT_EVENTS.threadJoinRefused}:${emailId}`,
  });
  return ownThreadId(emailId);
}

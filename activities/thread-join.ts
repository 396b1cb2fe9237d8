import { normaliseAddress } from '../lib/context-scope';
import { organisationDomain } from '../lib/organisation';
import type { ParsedEmail } from '../ports/store';
import type { ActivityDeps } from './deps';
import { correlationId } from './context';

/**
 * Decides whether a reply joins the thread its In-Reply-To / References point at. A Message-ID
 * is no secret (it travels in every reply and every forward), so knowing one proves nothing: the
 * sender must have taken part in the thread (sent, received or been answered), or, when
 * THREAD_JOIN_ORGANISATION is on, belong to the organisation of someone who did. Otherwise the
 * email starts its own thread, and the audit log says why.
 *
 * Returns the thread to join, or null for a thread of its own.
 */
export async function joinThread(
  deps: Pick<ActivityDeps, 'messages' | 'audit' | 'settings'>,
  emailId: string,
  parsed: Pick<ParsedEmail, 'references' | 'inReplyTo' | 'from'>,
): Promise<string | null> {
  const { account } = deps.settings;
  await deps.messages.setAccount(emailId, account);
  const ids = [...parsed.references, ...(parsed.inReplyTo ? [parsed.inReplyTo] : [])];
  const known = await deps.messages.findThreadId(ids, account);
  if (!known) return null;

  const sender = normaliseAddress(parsed.from?.address ?? '');
  // Our own addresses are in every thread; they vouch for no one.
  const ours = new Set([normaliseAddress(deps.settings.from.address), normaliseAddress(account)]);
  const participants = (await deps.messages.threadParticipants(known, account)).filter((a) => !ours.has(a));
  if (sender && !ours.has(sender) && participants.includes(sender)) return known;
  const domain = organisationDomain(sender);
  const colleague = domain !== null && participants.some((a) => organisationDomain(a) === domain);
  if (sender && !ours.has(sender) && deps.settings.threadJoinOrganisation && colleague) return known;

  const why = !sender
    ? 'the email names no sender'
    : ours.has(sender)
      ? `the sender ${sender} is our own address`
      : colleague
        ? `${sender} did not take part in it (a colleague did, but THREAD_JOIN_ORGANISATION is off)`
        : `${sender} did not take part in it`;
  const cid = correlationId();
  await deps.audit.record({
    emailId,
    correlationId: cid,
    eventType: 'thread_join_refused',
    errorClass: null,
    message: `not joined to thread ${known} that its In-Reply-To/References point at: ${why}; it starts its own thread`,
    details: { thread: known, sender, references: ids.slice(-20) },
    eventKey: `${cid}:thread_join_refused:${emailId}`,
  });
  return null;
}

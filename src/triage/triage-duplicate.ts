/**
 * One message delivered to several of our mailboxes (To support@, Cc billing@): each mailbox's run
 * sees its own copy. Exactly one answers, and each run can tell which from the headers and the
 * registry alone, so the two runs never race for it: the mailbox of the first of our addresses in
 * To, or when To names none of them, the first in Cc.
 */

/** A mailbox of the registry and the addresses that reach it (its From address, its login). */
export interface MailboxAddresses {
  id: string;
  addresses: string[];
}

/** The mailbox that answers a message with these recipients; null when none of ours is named. */
export function answeringMailbox(to: string[], cc: string[], mailboxes: readonly MailboxAddresses[]): MailboxAddresses | null {
  for (const list of [to, cc]) {
    for (const address of list) {
      const a = address.toLowerCase();
      const hit = mailboxes.find((b) => b.addresses.includes(a));
      if (hit) return hit;
    }
  }
  return null;
}

/**
 * The reason this copy is a duplicate, or null when this mailbox answers or cannot tell. Only a
 * copy whose own mailbox is named in To or Cc beside the answering one is a duplicate: a copy that
 * came through Bcc, a forward or an alias (this mailbox not named) may be the only one, and is
 * answered by the mailbox it came through.
 */
export function duplicateOf(
  m: { mailboxId?: string; to?: string[]; cc?: string[] },
  mailboxes: readonly MailboxAddresses[] | undefined,
): string | null {
  if (!m.mailboxId || !mailboxes || mailboxes.length < 2) return null;
  const answering = answeringMailbox(m.to ?? [], m.cc ?? [], mailboxes);
  if (!answering || answering.id === m.mailboxId) return null;
  const self = mailboxes.find((b) => b.id === m.mailboxId);
  const named = [...(m.to ?? []), ...(m.cc ?? [])].some((a) => self?.addresses.includes(a.toLowerCase()));
  if (!named) return null;
  return `also delivered to mailbox ${answering.id} (${answering.addresses[0] ?? ''}), which answers it`;
}

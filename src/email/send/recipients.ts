/**
 * Rules for the one address a reply may go to. The address comes from a stranger's headers, so
 * it is held to a narrow, plain form: a dot-atom local part and a public-looking domain name.
 * Anything a mail server or a header parser could read as more than one mailbox is refused.
 */

/** atext of RFC 5322 plus letters and digits of any script (RFC 6531). */
const LOCAL_ATOM = /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+$/u;
const DOMAIN_LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;
/** Names that only mean something inside one network (RFC 6761, RFC 6762, RFC 8375, common private suffixes). */
const LOCAL_SUFFIXES = ['localhost', 'local', 'localdomain', 'internal', 'intranet', 'lan', 'home.arpa', 'invalid', 'onion'];

/**
 * Why `address` is not acceptable as a reply recipient, or null when it is. `own` lists our own
 * addresses (every mailbox's): a reply to one of them would be mail between our mailboxes, a loop.
 */
export function recipientProblem(address: string, own: readonly string[] = []): string | null {
  if (typeof address !== 'string' || address.length === 0) return 'the address is empty';
  if (address.length > 254) return 'the address is longer than 254 characters';
  // Control characters, whitespace and the characters that separate or quote mailboxes.
  if (/[\s\p{Cc}<>,;:"()[\]\\]/u.test(address)) return 'the address contains whitespace, control characters or separators';
  const at = address.lastIndexOf('@');
  if (at <= 0 || address.indexOf('@') !== at) return 'the address needs exactly one @ with a local part before it';
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.length > 64) return 'the local part is longer than 64 characters';
  if (local.split('.').some((atom) => !LOCAL_ATOM.test(atom))) return `the local part "${local}" is not a plain dot-atom`;
  if (domain.length === 0 || domain.length > 253) return 'the domain is empty or too long';
  const labels = domain.split('.');
  if (labels.length < 2) return `"${domain}" is a single-label (local) name`;
  if (labels.some((l) => !DOMAIN_LABEL.test(l))) return `"${domain}" is not a valid domain name`;
  if (/^\d+$/.test(labels[labels.length - 1]!)) return `"${domain}" looks like an IP address, not a domain name`;
  const lower = domain.toLowerCase();
  const suffix = LOCAL_SUFFIXES.find((s) => lower === s || lower.endsWith(`.${s}`));
  if (suffix) return `"${domain}" is a local name (.${suffix})`;
  if (own.some((o) => o.trim().toLowerCase() === address.toLowerCase())) return 'it is one of our own mailboxes (a mail loop)';
  return null;
}

/** The domain of an address, lower-cased (empty when there is none). */
export function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0 ? '' : address.slice(at + 1).toLowerCase();
}

/** True when a Reply-To sends the answer to another domain than the one the mail came from. */
export function replyToDiffers(from: { address: string } | null, replyTo: { address: string } | null): boolean {
  if (!from || !replyTo) return false;
  return domainOf(from.address) !== domainOf(replyTo.address);
}

/**
 * Compares what an SMTP session is about to do with what the draft names: MAIL FROM must be our
 * address, RCPT TO exactly the one recipient, and the server must have accepted exactly that one.
 * Returns why they differ, or null.
 */
export function envelopeMismatch(
  expected: { from: string; to: string },
  seen: { from: string; to: string[]; accepted: string[] },
): string | null {
  if (seen.from !== expected.from) return `MAIL FROM <${seen.from}> is not <${expected.from}>`;
  const one = (list: string[]) => list.length === 1 && list[0] === expected.to;
  if (!one(seen.to)) return `RCPT TO ${JSON.stringify(seen.to)} is not exactly <${expected.to}>`;
  if (!one(seen.accepted)) return `the server accepted ${JSON.stringify(seen.accepted)}, not exactly <${expected.to}>`;
  return null;
}

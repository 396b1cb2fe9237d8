/**
 * Public mail providers: everyone at gmail.com is not one organisation, so these domains get no
 * same-organisation context (and no `works_at` edge in the graph).
 */
const PUBLIC_MAIL_DOMAINS = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'outlook.de',
  'hotmail.com',
  'hotmail.de',
  'live.com',
  'live.de',
  'msn.com',
  'yahoo.com',
  'yahoo.de',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'aol.de',
  'gmx.de',
  'gmx.net',
  'gmx.at',
  'gmx.ch',
  'web.de',
  't-online.de',
  'freenet.de',
  'posteo.de',
  'mailbox.org',
  'proton.me',
  'protonmail.com',
]);

/** The organisation of an address is its mail domain, unless that is a public mail provider. */
export function organisationDomain(address: string): string | null {
  const at = address.lastIndexOf('@');
  const domain =
    at >= 0
      ? address
          .slice(at + 1)
          .trim()
          .toLowerCase()
      : '';
  return domain && !PUBLIC_MAIL_DOMAINS.has(domain) ? domain : null;
}

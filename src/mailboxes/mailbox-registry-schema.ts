/**
 * Every field a mailbox registry file (MAILBOXES_FILE, docs/mailboxes.md) may have, at every
 * level: the file's unknown keys are refused with their path and the nearest known name
 * (src/platform/config-schema.ts). Values are checked by the parser (src/mailboxes/mailbox-registry.ts).
 */
import type { z } from 'zod';
import { anyValue, byType, fields, listOf, whenObject, type Elsewhere } from '../platform/config-schema';
import { BUSINESS_HOURS_FIELDS, DEADLINE_FIELDS, ESCALATION_FIELDS } from './mailbox-deadlines';
import { OAUTH_FIELDS } from './mailbox-oauth';

const named = (names: readonly string[], as: (name: string) => z.ZodType = () => anyValue) =>
  Object.fromEntries(names.map((n) => [n, as(n)]));

/** `{ env: VARIABLE }` or `{ file: path }`. */
const secret = whenObject(fields({ env: anyValue, file: anyValue }));
const SECRET_FIELDS = new Set(['password', 'clientSecret', 'refreshToken', 'serviceAccountKey', 'webhookSecret']);
const valueOf = (name: string) => (SECRET_FIELDS.has(name) ? secret : anyValue);

const auth = byType({ password: { password: secret }, oauth2: named(OAUTH_FIELDS, valueOf) });

const IMAP_FIELDS = ['host', 'port', 'tls', 'user', 'password', 'auth', 'folders', 'sentFolder', 'pollIntervalSeconds'];
const SMTP_FIELDS = [
  'host',
  'port',
  'tls',
  'user',
  'password',
  'auth',
  'timeoutMs',
  'from',
  'signature',
  'signatureHtml',
  'logo',
  'replyFormat',
  'providerFilesSent',
];
const ENTRY_FIELDS = ['id', 'enabled', 'mode', 'team', 'teamAddresses', 'imap', 'smtp', 'priorityRules', 'language', ...DEADLINE_FIELDS];

const IMAP_ONLY = IMAP_FIELDS.filter((n) => !SMTP_FIELDS.includes(n));
const SMTP_ONLY = SMTP_FIELDS.filter((n) => !IMAP_FIELDS.includes(n));

/**
 * A field of one section written into another (`providerFilesSent` under `imap`, `sentFolder` in
 * the entry itself) is pointed to where it belongs. `entryOf` finds the entry from the object's path.
 */
function belongsIn(section: 'imap' | 'smtp', names: readonly string[], entryOf: (objectPath: PropertyKey[]) => PropertyKey[]): Elsewhere {
  return Object.fromEntries(names.map((n) => [n, (p: PropertyKey[]) => [...entryOf(p), section, n]]));
}
const sectionsEntry = (p: PropertyKey[]) => p.slice(0, -1);
const itself = (p: PropertyKey[]) => p;

const imap = fields({ ...named(IMAP_FIELDS, valueOf), auth }, belongsIn('smtp', SMTP_ONLY, sectionsEntry));
const smtp = fields(
  {
    ...named(SMTP_FIELDS, valueOf),
    auth, // or the word `imap`: shares the IMAP sign-in
    providerFilesSent: whenObject(fields({ graceSeconds: anyValue, attempts: anyValue })),
  },
  belongsIn('imap', IMAP_ONLY, sectionsEntry),
);

const entry = fields(
  {
    ...named(ENTRY_FIELDS),
    imap: whenObject(imap),
    smtp: whenObject(smtp),
    businessHours: whenObject(fields(named(BUSINESS_HOURS_FIELDS))),
    escalation: whenObject(fields(named(ESCALATION_FIELDS, valueOf))),
  },
  { ...belongsIn('imap', IMAP_FIELDS, itself), ...belongsIn('smtp', SMTP_ONLY, itself) },
);

/** The whole file: `version` and the list of entries. */
export const MAILBOX_REGISTRY_SCHEMA = fields({ version: anyValue, mailboxes: listOf(entry) });

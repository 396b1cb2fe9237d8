import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { REGISTRY_VERSION } from '../../src/mailboxes/mailbox-registry';

/** One demo mailbox: a Dovecot account, its sending identity and the samples addressed to it. */
export interface DemoMailbox {
  id: string;
  user: string;
  password: string;
  /** Variable the registry file names for the password: the file itself holds no secret. */
  passwordVariable: string;
  fromName: string;
  signature?: string;
  /** Case deadlines of the registry entry (docs/cases.md#deadlines). */
  deadlines?: Record<string, unknown>;
  /** Sample files (scripts/demo-mails) delivered to this mailbox; the first gets the rest. */
  samples: readonly string[] | 'rest';
}

const ALL: readonly DemoMailbox[] = [
  {
    id: 'support',
    user: 'support@demo.example',
    password: 'demo-password',
    passwordVariable: 'DEMO_SUPPORT_IMAP_PASSWORD',
    fromName: 'Support Team',
    signature: 'Demo GmbH · Kundensupport',
    // Minutes instead of hours, so the demo sees a case's reminder: 90 % of the target is the warning time.
    deadlines: { responseTargets: { critical: '1m', high: '2m', normal: '3m', low: '4m' }, reminderBefore: '90%' },
    samples: 'rest',
  },
  {
    id: 'billing',
    user: 'billing@demo.example',
    password: 'demo-billing-password',
    passwordVariable: 'DEMO_BILLING_IMAP_PASSWORD',
    fromName: 'Demo GmbH Buchhaltung',
    signature: 'Demo GmbH · Buchhaltung',
    samples: ['01-rechnung-doppelt-abgebucht.eml'],
  },
  {
    id: 'info',
    user: 'info@demo.example',
    password: 'demo-info-password',
    passwordVariable: 'DEMO_INFO_IMAP_PASSWORD',
    fromName: 'Demo GmbH',
    samples: ['05-feature-question.eml'],
  },
];

export const MAX_DEMO_MAILBOXES = ALL.length;

/** The first `count` demo mailboxes (1 = the single-account setup with the `default` mailbox). */
export function demoMailboxes(count: number): DemoMailbox[] {
  return ALL.slice(0, count);
}

/** Which mailbox a sample file goes to. */
export function mailboxFor(file: string, boxes: readonly DemoMailbox[]): DemoMailbox {
  return boxes.find((b) => b.samples !== 'rest' && b.samples.includes(file)) ?? boxes[0]!;
}

/** The registry the worker reads (MAILBOXES_FILE): every mailbox on the demo's Dovecot and SMTP sink. */
export function writeRegistry(
  file: string,
  boxes: readonly DemoMailbox[],
  servers: { imap: { host: string; port: number }; smtp: { host: string; port: number } },
): void {
  const doc = {
    version: REGISTRY_VERSION,
    mailboxes: boxes.map((b) => ({
      id: b.id,
      imap: {
        host: servers.imap.host,
        port: servers.imap.port,
        tls: false,
        user: b.user,
        password: { env: b.passwordVariable },
        folders: ['INBOX'],
        sentFolder: 'Sent',
        pollIntervalSeconds: 10,
      },
      smtp: {
        host: servers.smtp.host,
        port: servers.smtp.port,
        tls: false,
        from: `${b.fromName} <${b.user}>`,
        ...(b.signature ? { signature: b.signature } : {}),
      },
      ...(b.deadlines ?? {}),
    })),
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `# Written by the demo: one entry per mailbox (docs/mailboxes.md).\n${stringify(doc)}`);
}

/** The sample addressed to another mailbox of the demo: its To header names that address. */
export function addressedTo(raw: string, box: DemoMailbox): string {
  const end = raw.search(/\r?\n\r?\n/);
  const head = end < 0 ? raw : raw.slice(0, end);
  return head.replace(/^To:.*$/im, `To: ${box.fromName} <${box.user}>`) + (end < 0 ? '' : raw.slice(end));
}

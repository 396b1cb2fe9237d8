import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../src/config';
import type { MailboxEntry, SecretRef } from '../../src/mailboxes/mailbox-registry';

/**
 * Every registry example of docs/mailboxes.md goes through the real loader, as an operator would
 * paste it: a documented entry that cannot connect (plain IMAP to port 993) or that the loader
 * refuses fails here, not in someone's installation.
 */
const DOC = path.resolve(__dirname, '../../docs/mailboxes.md');

/** The fenced YAML blocks of the page. */
function yamlBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** A block as a registry file: a whole file as it is, one or more entries under `mailboxes:`. */
function asRegistryFile(block: string): string {
  if (/^mailboxes:|^version:/m.test(block)) return block;
  return `version: 1\nmailboxes:\n${block.replace(/^(?=.)/gm, '  ')}`;
}

/** The `{ env: NAME }` references of a parsed block, given dummy values so they resolve. */
function envRefs(value: unknown, out: Record<string, string> = {}): Record<string, string> {
  if (Array.isArray(value)) for (const v of value) envRefs(v, out);
  else if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (Object.keys(o).length === 1 && typeof o.env === 'string') out[o.env] = `dummy-${o.env.toLowerCase()}`;
    else for (const v of Object.values(o)) envRefs(v, out);
  }
  return out;
}

/** Loads a block with nothing else configured: defaults such as IMAP_TLS=false apply, as in a fresh installation. */
function load(block: string): MailboxEntry[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'docs-mailboxes-'));
  const file = path.join(dir, 'mailboxes.yaml');
  const text = asRegistryFile(block);
  writeFileSync(file, text);
  const env = envRefs(parseYaml(text));
  const config = loadConfig({ MAILBOXES_FILE: file, ...env });
  for (const m of config.mailboxes) {
    const refs = [m.imap.password, m.smtp.password, m.imap.oauth?.clientSecret, m.imap.oauth?.refreshToken, m.smtp.oauth?.clientSecret];
    for (const ref of refs.filter((r): r is SecretRef => r !== undefined && 'env' in r)) assert.ok(config.readSecret(ref));
  }
  return config.mailboxes;
}

const blocks = yamlBlocks(readFileSync(DOC, 'utf8'));
const entries = blocks.flatMap((b) => load(b));
const byHost = (host: string) => {
  const found = entries.filter((e) => e.imap.host === host);
  assert.equal(found.length, 1, `one documented entry on ${host}`);
  return found[0]!;
};

test('every YAML example of docs/mailboxes.md loads through the registry loader', () => {
  assert.ok(blocks.length >= 3, `the registry file, Microsoft 365 and Gmail; found ${blocks.length}`);
  for (const block of blocks) assert.ok(load(block).length > 0);
});

test('the documented entries can connect: implicit TLS on 993 and 465, STARTTLS on 587', () => {
  for (const e of entries) {
    if (e.imap.port === 993) assert.equal(e.imap.tls, true, `${e.id}: IMAP on 993 is TLS from the first byte`);
    if (e.smtp.port === 465 || e.smtp.port === 587) assert.equal(e.smtp.tls, true, `${e.id}: SMTP on ${e.smtp.port} needs tls`);
  }
});

test('Microsoft 365: implicit TLS on 993, Sent Items, and the provider files sent mail', () => {
  const m365 = byHost('outlook.office365.com');
  assert.equal(m365.imap.port, 993);
  assert.equal(m365.imap.tls, true);
  assert.equal(m365.imap.sentFolder, 'Sent Items');
  assert.equal(m365.imap.oauth?.provider, 'microsoft-app');
  assert.deepEqual([m365.smtp.host, m365.smtp.port, m365.smtp.tls], ['smtp.office365.com', 587, true]);
  assert.ok(m365.smtp.providerFilesSent, 'Exchange Online files submitted mail itself');
  assert.equal(m365.smtp.oauth, m365.imap.oauth, 'one sign-in for both');
});

test('Gmail: implicit TLS on 993, [Gmail]/Sent Mail, SMTP on 465, and the provider files sent mail', () => {
  const gmail = byHost('imap.gmail.com');
  assert.equal(gmail.imap.port, 993);
  assert.equal(gmail.imap.tls, true);
  assert.equal(gmail.imap.sentFolder, '[Gmail]/Sent Mail');
  assert.deepEqual([gmail.smtp.host, gmail.smtp.port, gmail.smtp.tls], ['smtp.gmail.com', 465, true]);
  assert.ok(gmail.smtp.providerFilesSent, 'Gmail files submitted mail itself');
});

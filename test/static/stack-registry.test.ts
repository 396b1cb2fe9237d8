/**
 * The stack's example registry (deploy/config/mailboxes.example.yaml) is a registry the product
 * loads as it is, and the OAuth2 entry it shows keeps its token where an upgrade does not lose it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../src/config';

const root = path.resolve(__dirname, '../..');
const example = path.join(root, 'deploy/config/mailboxes.example.yaml');

test('the example registry loads: one mailbox, its secrets as files the stack mounts', () => {
  const config = loadConfig({ DATABASE_URL: 'mysql://root@127.0.0.1:3306/x', MAILBOXES_FILE: example });
  assert.deepEqual(
    config.mailboxes.map((m) => m.id),
    ['support'],
  );
  const text = readFileSync(example, 'utf8');
  for (const [, file] of text.matchAll(/^\s+password: \{ file: (\S+) \}$/gm)) assert.match(file!, /^\/run\/secrets\/[a-z_]+$/);
});

test('the commented OAuth2 entry, once uncommented, loads and keeps its refresh token on the app-state volume', () => {
  const lines = readFileSync(example, 'utf8').split('\n');
  const from = lines.indexOf('  # - id: anna');
  assert.ok(from > 0, 'the OAuth2 example is there');
  const text = lines.map((l, i) => (i >= from ? l.replace(/^ {2}# /, '  ') : l)).join('\n');
  const doc = parseYaml(text) as { mailboxes: Array<{ id: string; imap: { auth?: { refreshToken: { file: string } } } }> };
  const anna = doc.mailboxes.find((m) => m.id === 'anna');
  assert.ok(anna, 'the OAuth2 example is there');
  assert.match(anna.imap.auth!.refreshToken.file, /^\/app\/state\/tokens\//);
  const compose = readFileSync(path.join(root, 'deploy/compose.yaml'), 'utf8');
  assert.match(compose, /- app-state:\/app\/state$/m);
});

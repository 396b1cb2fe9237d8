import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { loadConfig, type Config } from '../../src/config';
import { ConfigError } from '../../src/platform/errors';

const base = { IMAP_USER: 'u', IMAP_PASSWORD: 'p' };

/**
 * Every yes/no variable of the product, and where its value lands. A new one read with
 * `boolean()` fails the source scan below until it is listed here (and so tested).
 */
const BOOLEAN_SETTINGS: Record<string, { read: (c: Config) => boolean; env?: Record<string, string> }> = {
  CASES: { read: (c) => c.cases.enabled },
  TEMPORAL_TLS: { read: (c) => c.security.temporal.tls !== undefined },
  IMAP_TLS: { read: (c) => c.imap.tls },
  IMAP_IMPORT_HISTORY: { read: (c) => c.imap.importHistory },
  IMAP_IDLE: { read: (c) => c.imap.idle },
  SMTP_TLS: { read: (c) => c.smtp.tls },
  CONTEXT_INCLUDE_ORGANISATION: { read: (c) => c.context.includeOrganisation },
  THREAD_JOIN_ORGANISATION: { read: (c) => c.context.threadJoinOrganisation },
  INBOX_COOKIE_SECURE: { read: (c) => c.inbox.cookieSecure },
  TRIAGE_SPAM_FILTER_TRUSTED: { read: (c) => c.triage.spamFilter?.trusted === true },
  // Read only where spamd is asked at all.
  TRIAGE_SPAMD_LEARN: { read: (c) => c.spamd?.learn === true, env: { TRIAGE_SPAMD: 'spamd.example.test:783' } },
  INBOX_LOCAL_USERS: {
    read: (c) => c.inbox.localUsers,
    // Off needs single sign-on, or nobody could sign in.
    env: { INBOX_OIDC_ISSUER: 'https://idp.example.test', INBOX_OIDC_CLIENT_ID: 'inbox', INBOX_PUBLIC_URL: 'https://inbox.example.test' },
  },
};

/**
 * Read by the launcher (bin/compiled.js) and the setup script before any TypeScript runs, so
 * they cannot use the product's reader; both are developer switches documented as `1`.
 */
const TOOLING_SWITCHES = ['EMAIL_RAG_FROM_SOURCE', 'SKIP_SETUP_APT'];

const YES = ['true', 'TRUE', 'True', '1', 'yes', 'YES', 'on', 'On', ' on '];
const NO = ['false', 'FALSE', '0', 'no', 'No', 'off', 'OFF'];

for (const [name, setting] of Object.entries(BOOLEAN_SETTINGS)) {
  test(`${name}: true/false, 1/0, yes/no, on/off in any case; anything else refused with the accepted spellings`, () => {
    const env = { ...base, ...setting.env };
    for (const word of YES) assert.equal(setting.read(loadConfig({ ...env, [name]: word })), true, `${name}=${word}`);
    for (const word of NO) assert.equal(setting.read(loadConfig({ ...env, [name]: word })), false, `${name}=${word}`);
    for (const word of ['maybe', 'y', '2', 'enabled']) {
      assert.throws(
        () => loadConfig({ ...env, [name]: word }),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.message.includes(`${name} must be true or false, got "${word}" (accepted, in any case: true/false, 1/0, yes/no, on/off)`),
        `${name}=${word}`,
      );
    }
  });
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sources(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

test('every yes/no variable the product reads goes through the one reader, and is listed above', () => {
  const root = path.resolve(__dirname, '../..');
  const files = ['src', 'workers', 'activities'].flatMap((d) => sources(path.join(root, d)));
  const readers = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\.boolean\(\s*'([A-Z0-9_]+)'/g)) readers.add(m[1]!);
    const rel = path.relative(root, file);
    // A second spelling would creep back in as a two-word choice or a comparison with one word.
    assert.doesNotMatch(
      text,
      /\.(either|oneOf)\(\s*'[A-Z0-9_]+',\s*(\[\s*)?'(on|off|true|false|yes|no)'/,
      `${rel}: a yes/no variable read as words`,
    );
    assert.doesNotMatch(
      text,
      /env\.[A-Z0-9_]+\??\.?\s*(===|!==)\s*'(1|0|on|off|true|false|yes|no)'/,
      `${rel}: a yes/no variable compared by hand`,
    );
  }
  assert.deepEqual([...readers].sort(), Object.keys(BOOLEAN_SETTINGS).sort());
  // The documentation says the same for each of them.
  const docs = readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');
  for (const name of [...Object.keys(BOOLEAN_SETTINGS), ...TOOLING_SWITCHES]) assert.ok(docs.includes(`\`${name}\``), `${name} documented`);
  assert.match(docs, /`true`\/`false`, `1`\/`0`, `yes`\/`no`,\s+`on`\/`off`/);
});

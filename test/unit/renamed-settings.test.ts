/** A renamed setting keeps working under its old name for one release, with a warning; both names at odds are an error. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/platform/errors';
import { RENAMED_SETTINGS, withRenamedSettings } from '../../src/platform/renamed-settings';

const base = { IMAP_USER: 'support', IMAP_PASSWORD: 'secret' };

test('the new names are read', () => {
  const config = loadConfig({ ...base, IMAP_FOLDER: 'Support', IMAP_SENT_FOLDER: 'Gesendet' });
  assert.equal(config.imap.folder, 'Support');
  assert.equal(config.imap.sentFolder, 'Gesendet');
  assert.deepEqual(config.warnings, []);
});

test('an old name still works, and the start says what to change', () => {
  const config = loadConfig({ ...base, IMAP_MAILBOX: 'Support', IMAP_SENT_MAILBOX: 'Gesendet' });
  assert.equal(config.imap.folder, 'Support');
  assert.equal(config.imap.sentFolder, 'Gesendet');
  assert.equal(config.warnings?.length, 2);
  assert.match(config.warnings![0]!, /IMAP_MAILBOX is renamed IMAP_FOLDER in 1\.5 .*works until 1\.6: set IMAP_FOLDER instead/);
});

test('the same value under both names is no conflict; different values are refused with both names', () => {
  assert.equal(loadConfig({ ...base, IMAP_MAILBOX: 'Support', IMAP_FOLDER: 'Support' }).imap.folder, 'Support');
  assert.throws(
    () => loadConfig({ ...base, IMAP_MAILBOX: 'Support', IMAP_FOLDER: 'INBOX' }),
    (err: unknown) => err instanceof ConfigError && /IMAP_MAILBOX is the old name of IMAP_FOLDER .*keep IMAP_FOLDER only/.test(err.message),
  );
});

test('every renamed setting names a new one and when the old name stops working', () => {
  for (const [old, r] of Object.entries(RENAMED_SETTINGS)) {
    assert.notEqual(old, r.now);
    assert.match(r.until, /^\d+\.\d+$/);
    const problems: string[] = [];
    assert.equal(withRenamedSettings({ [old]: 'x' }, problems).env[r.now], 'x');
    assert.deepEqual(problems, []);
  }
});

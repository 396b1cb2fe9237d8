import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSignature } from '../../src/email/send/send.activities';

test('a mailbox signature goes below the reply once, behind one "-- " separator', () => {
  assert.equal(withSignature('Hallo,\n\nDanke.\n', 'Demo GmbH'), 'Hallo,\n\nDanke.\n\n-- \nDemo GmbH\n');
  assert.equal(
    withSignature('Hallo', '-- \r\nDemo GmbH\r\nBuchhaltung'),
    'Hallo\n\n-- \nDemo GmbH\nBuchhaltung\n',
    'its own separator is not doubled',
  );
  assert.equal(
    withSignature('Hallo\n\n-- \nDemo GmbH\n', 'Demo GmbH'),
    'Hallo\n\n-- \nDemo GmbH\n',
    'an approved body that already ends with it',
  );
  assert.equal(withSignature('Hallo', undefined), 'Hallo');
  assert.equal(withSignature('Hallo', '  \n '), 'Hallo', 'a blank signature adds nothing');
});

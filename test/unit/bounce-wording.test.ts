/**
 * A delivery failure told by its wording (src/triage/bounce-wording.ts): a gateway's or a
 * malformed postmaster's notice without delivery-status part or bounce sender is a bounce; a
 * person who writes about a bounce, forwards one or uses the words without a server's is drafted;
 * a short notice with the failure after a quoted subject is a bounce.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRawEmail } from '../../src/email/intake/mail-parser';
import { triage, triageMessage, type TriageSettings } from '../../src/triage/triage';

const SETTINGS: TriageSettings = { ownAddresses: ['support@example.test'], allow: [] };

async function verdictOf(from: string, subject: string, body: string) {
  const raw = [
    `From: ${from}`,
    'To: support@example.test',
    `Subject: ${subject}`,
    'Date: Mon, 07 Dec 2026 09:00:00 +0100',
    'Message-ID: <w-1@example.org>',
    'Content-Type: text/plain; charset=utf-8',
    '',
    body,
  ].join('\r\n');
  return triage(triageMessage(await parseRawEmail(Buffer.from(raw), 'w-1')), SETTINGS);
}

test('a gateway notice without report part or bounce sender is a bounce by its wording (en, de)', async () => {
  const scanner = await verdictOf(
    'imss@gateway.example.org',
    'Mail could not be delivered',
    '****** Message from InterScan Messaging Security Suite ******\r\n\r\nSent <<< RCPT TO:<isam@example.org>\r\nReceived >>> 550 5.1.1 unknown user.\r\n\r\nUnable to deliver message to <isam@example.org>.',
  );
  assert.equal(scanner?.class, 'bounce');
  assert.match(scanner!.reason, /^delivery-failure wording: subject "Mail could not be delivered" \+ /);

  const listTagged = await verdictOf(
    'list@lists.example.org',
    '[languse] Mail delivery failed: returning message to sender',
    'This message was created automatically by mail delivery software.\r\n\r\nA message that you sent could not be delivered to one or more of its recipients.',
  );
  assert.equal(listTagged?.class, 'bounce');

  const german = await verdictOf(
    'gateway@example.de',
    'Zustellung fehlgeschlagen',
    'Ihre Nachricht an kunde@example.de konnte nicht zugestellt werden.\r\nGrund: Empfänger unbekannt.',
  );
  assert.equal(german?.class, 'bounce');

  const delayed = await verdictOf(
    'gateway@example.com',
    'Mail Delivery Warning',
    'This is an advisory-only email.\r\n\r\nDelivery of email to this address "calvin@example.com" has been postponed due to a full mailbox.\r\nWe will continue to try to deliver your message over the next few days.',
  );
  assert.equal(delayed?.class, 'bounce');
});

test('a person writing about a bounce, or the words without a server’s, is drafted', async () => {
  assert.equal(
    await verdictOf(
      'anna@example.org',
      'Mail could not be delivered',
      'Hello, my mail to your billing address could not be delivered (550 5.1.1 user unknown). Can you check which address I should use?',
    ),
    null,
    'a person asking about their own bounce',
  );
  assert.equal(
    await verdictOf(
      'anna@example.org',
      'Fwd: Mail could not be delivered',
      'See below — what is wrong?\r\n\r\n---------- Forwarded message ---------\r\nUnable to deliver message to <x@example.org>. 550 5.1.1',
    ),
    null,
    'a forwarded bounce',
  );
  assert.equal(
    await verdictOf('anna@example.org', 'Delivery problem', 'My parcel was not delivered yesterday, the tracking says delivered.'),
    null,
    'a parcel, not a mail, and no server words',
  );
  assert.equal(
    await verdictOf('kunde@example.de', 'Zustellung verzögert', 'Meine Bestellung 4711 ist seit einer Woche unterwegs. Wann kommt sie an?'),
    null,
    'a delayed order',
  );
});

test("a gateway's short notice with the failure after the quoted subject is a bounce; a person's is not", async () => {
  const notice = (subject: string, body: string) => verdictOf('gateway@bank.example', subject, body);
  const gateway = await notice(
    'RE: Your order 4711 : non remis (delivery failed)',
    "*****\r\nVotre message n'a pas pu etre delivre a\r\nduke@bank.example\r\n*****\r\nYour message could not be delivered to\r\nduke@bank.example\r\n*****",
  );
  assert.equal(gateway?.class, 'bounce');
  assert.match(gateway!.reason, /short delivery-failure notice/);
  const german = await notice(
    'AW: Rechnung 12 - nicht zugestellt',
    'Ihre Nachricht an <anna@bank.example> konnte nicht zugestellt werden.',
  );
  assert.equal(german?.class, 'bounce');
  // A person: first person, a question, or no failure in the subject.
  assert.equal(await notice('Re: delivery failed', 'My message could not be delivered to anna@bank.example, can you check?'), null);
  assert.equal(await notice('Re: delivery failed', 'Your message could not be delivered to anna@bank.example. I will look into it.'), null);
  assert.equal(await notice('Re: Rechnung 12', 'Your message could not be delivered to anna@bank.example'), null);
});

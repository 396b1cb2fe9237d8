import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answeredMails, baseSubject, isReplySubject, namedIds } from '../../src/email/answered-elsewhere/outside-reply-match';
import type { OutsideReply, WaitingMail } from '../../src/email/answered-elsewhere/outside-replies.port';

const at = (iso: string) => new Date(iso);

function reply(over: Partial<OutsideReply> = {}): OutsideReply {
  return {
    mailboxId: 'support',
    messageId: '<anna-1@example.test>',
    foundVia: 'sent_folder',
    from: { name: 'Anna', address: 'anna@example.test' },
    to: ['erika@customer.example'],
    subject: 'Re: Rechnung doppelt',
    inReplyTo: null,
    references: [],
    text: 'erledigt',
    sentAt: at('2026-12-06T10:00:00Z'),
    ...over,
  };
}

function mail(over: Partial<WaitingMail> = {}): WaitingMail {
  return {
    emailId: 'email-1',
    messageId: '<m1@customer.example>',
    customer: ['erika@customer.example'],
    subject: 'Rechnung doppelt',
    receivedAt: at('2026-12-06T09:00:00Z'),
    ...over,
  };
}

test('subjects: reply and forward prefixes of common clients and languages are stripped, counters too', () => {
  for (const s of [
    'Re: Rechnung doppelt',
    'AW: Re: Rechnung doppelt',
    'RE[2]: Rechnung  doppelt',
    'SV: Rechnung doppelt',
    'Antw: rechnung doppelt',
    'WG: Rechnung doppelt',
  ])
    assert.equal(baseSubject(s), 'rechnung doppelt', s);
  assert.ok(isReplySubject('AW: x') && isReplySubject('Re[3]: x') && isReplySubject('Antwort: x'));
  assert.ok(!isReplySubject('Fwd: x') && !isReplySubject('Rechnung') && !isReplySubject('Reminder: x'));
  // A hostile subject of prefixes alone is stripped a bounded number of times and never hangs.
  assert.equal(baseSubject('Re: '.repeat(10_000)).length < 50_000, true);
});

test('headers first: In-Reply-To names the mail; References only the same customer’s mails', () => {
  const r = reply({
    inReplyTo: '<m1@customer.example>',
    references: ['<m0@customer.example>', '<note@colleague.example>', '<m1@customer.example>'],
  });
  assert.deepEqual(namedIds(r), ['<m1@customer.example>', '<m0@customer.example>', '<note@colleague.example>']);
  const found = answeredMails(
    r,
    [
      mail(),
      mail({ emailId: 'email-0', messageId: '<m0@customer.example>' }),
      // Someone else wrote into the thread: writing to Erika does not answer them.
      mail({ emailId: 'email-9', messageId: '<note@colleague.example>', customer: ['bob@partner.example'] }),
    ],
    [],
  );
  assert.deepEqual(found, [
    { emailId: 'email-1', matchedBy: 'in_reply_to' },
    { emailId: 'email-0', matchedBy: 'references' },
  ]);
});

test('broken headers: the same customer, a reply prefix on the same subject, written after the mail', () => {
  assert.deepEqual(answeredMails(reply(), [], [mail()]), [{ emailId: 'email-1', matchedBy: 'subject' }]);
  // Not a reply (no prefix), another customer, another subject, or written before the mail: nothing.
  assert.deepEqual(answeredMails(reply({ subject: 'Rechnung doppelt' }), [], [mail()]), []);
  assert.deepEqual(answeredMails(reply({ to: ['someone@else.example'] }), [], [mail()]), []);
  assert.deepEqual(answeredMails(reply({ subject: 'Re: Lieferung' }), [], [mail()]), []);
  assert.deepEqual(answeredMails(reply({ sentAt: at('2026-12-06T08:00:00Z') }), [], [mail()]), []);
  // An empty subject never ties anything.
  assert.deepEqual(answeredMails(reply({ subject: 'Re: ' }), [], [mail({ subject: '' })]), []);
});

test('a reply to mail the assistant never saw answers nothing', () => {
  assert.deepEqual(answeredMails(reply({ inReplyTo: '<unknown@x>' }), [], []), []);
});

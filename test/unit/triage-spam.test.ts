/**
 * Spam in triage: the filters' scores and words (SpamAssassin, rspamd), the threshold, a forged
 * "not spam" that only counts from a filter declared trusted, the built-in check on mail a person
 * wrote (German and English support questions) and on typical spam, and machine reports.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { spamFilterVerdict, spamScore } from '../../src/triage/spam-filter-headers';
import { spamContent, spamContentScore } from '../../src/triage/spam-content';
import { triage, type TriageMessage, type TriageSettings } from '../../src/triage/triage';

const h = (lines: Record<string, string>): Record<string, string[]> =>
  Object.fromEntries(Object.entries(lines).map(([k, v]) => [k.toLowerCase(), [v]]));

const UNTRUSTED = { threshold: 5, trusted: false };
const TRUSTED = { threshold: 5, trusted: true };

test('scores are read from SpamAssassin, rspamd and Exim headers, the most exact one first', () => {
  assert.deepEqual(spamScore(h({ 'X-Spam-Status': 'No, score=7.2 required=5.0 tests=HTML_MESSAGE autolearn=no' })), {
    header: 'X-Spam-Status',
    score: 7.2,
  });
  assert.deepEqual(spamScore(h({ 'X-Spam-Score': '-0.1' })), { header: 'X-Spam-Score', score: -0.1 });
  assert.deepEqual(spamScore(h({ 'X-Rspamd-Score': '12.30' })), { header: 'X-Rspamd-Score', score: 12.3 });
  assert.deepEqual(spamScore(h({ 'X-Spamd-Result': 'default: True [12.30 / 15.00]; R_SPF_FAIL(1.00)[-all]' })), {
    header: 'X-Spamd-Result',
    score: 12.3,
  });
  assert.deepEqual(spamScore(h({ 'X-Spam-Level': '*******' })), { header: 'X-Spam-Level', score: 7 });
  assert.deepEqual(spamScore(h({ 'X-Spam-Bar': '+++' })), { header: 'X-Spam-Bar', score: 3 });
  assert.equal(spamScore(h({ 'X-Spam-Level': '' })), null);
  assert.deepEqual(spamScore(h({ 'X-Spam-Status': 'No, hits=2,5 required=5' })), { header: 'X-Spam-Status', score: 2.5 });
  // Exim/cPanel: X-Spam-Score in tenths beside the decimal score (a real order confirmation, see the corpus).
  const exim = h({ 'X-Spam-Status': 'No, score=0.8', 'X-Spam-Score': '8', 'X-Spam-Bar': '/', 'X-Spam-Flag': 'NO' });
  assert.deepEqual(spamScore(exim), { header: 'X-Spam-Status', score: 0.8 });
  assert.equal(spamFilterVerdict(exim, UNTRUSTED), null);
});

test('a score at or above the threshold is spam, even when the filter wrote "No"', () => {
  const v = spamFilterVerdict(h({ 'X-Spam-Status': 'No, score=7.2 required=8.0' }), UNTRUSTED);
  assert.equal(v?.spam, true);
  assert.match(v!.reason, /X-Spam-Status score 7\.2 ≥ 5/);
  assert.equal(spamFilterVerdict(h({ 'X-Spam-Status': 'No, score=7.2 required=8.0' }), { threshold: 8, trusted: true })?.spam, false);
  assert.equal(spamFilterVerdict(h({ 'X-Rspamd-Score': '5' }), UNTRUSTED)?.spam, true, 'at the threshold');
  assert.equal(spamFilterVerdict(h({ 'X-Spam-Level': '******' }), UNTRUSTED)?.spam, true);
});

test("the filters' own words: X-Spam-Flag, X-Spam, X-Spamd-Result, rspamd's actions", () => {
  const spamHeaders: Array<Record<string, string>> = [
    { 'X-Spam-Flag': 'YES' },
    { 'X-Spam-Status': 'Yes, score=3.1 required=5.0' },
    { 'X-Spam': 'Yes' },
    { 'X-Spamd-Result': 'default: True [3.00 / 15.00]' },
    { 'X-Rspamd-Action': 'add header' },
    { 'X-Spam-Action': 'reject' },
    { 'X-Rspamd-Action': 'rewrite subject' },
  ];
  for (const headers of spamHeaders) {
    assert.equal(spamFilterVerdict(h(headers), UNTRUSTED)?.spam, true, JSON.stringify(headers));
  }
  assert.equal(spamFilterVerdict(h({ 'X-Rspamd-Action': 'no action' }), TRUSTED)?.spam, false);
  assert.equal(spamFilterVerdict(h({ 'X-Rspamd-Action': 'greylist' }), TRUSTED), null, 'greylist says nothing about spam');
  assert.equal(spamFilterVerdict(h({ 'X-Spamd-Result': 'default: False [1.20 / 15.00]' }), TRUSTED)?.spam, false);
});

test('a forged "No" counts only from a filter the operator declared trusted', () => {
  const forged = h({ 'X-Spam-Status': 'No, score=-100.0 required=5.0', 'X-Spam-Flag': 'NO' });
  assert.equal(spamFilterVerdict(forged, UNTRUSTED), null, 'untrusted: the built-in check decides');
  assert.equal(spamFilterVerdict(forged, TRUSTED)?.spam, false);
  assert.equal(spamFilterVerdict({}, TRUSTED), null, 'no header, no verdict');
});

const SETTINGS: TriageSettings = { ownAddresses: ['support@example.test'], allow: [] };

function message(over: Partial<TriageMessage> & { text?: string; html?: string | null }): TriageMessage {
  const { text = '', html = null, ...rest } = over;
  return {
    from: 'kunde@example.de',
    fromName: 'Erika Muster',
    replyTo: null,
    subject: 'Frage',
    headers: h({ 'Message-ID': '<a@example.de>', Date: 'Mon, 1 Dec 2026 10:00:00 +0100', To: 'support@example.test' }),
    partTypes: [],
    to: ['support@example.test'],
    body: { text, html },
    ...rest,
  };
}

const SPAM_TEXT = `Dear Friend,
You have been selected! Claim your prize of US$ 2,500,000.00 now. Click here: http://192.0.2.7/claim
This is not spam. To be removed reply REMOVE.`;

test('a forged "No" from an untrusted filter does not keep spam from the built-in check; a trusted one does', () => {
  const m = message({ text: SPAM_TEXT, subject: 'WINNING NOTIFICATION!!!', headers: h({ 'X-Spam-Status': 'No, score=-5.0' }) });
  assert.equal(triage(m, SETTINGS)?.class, 'spam');
  assert.match(triage(m, SETTINGS)!.reason, /built-in spam check/);
  assert.equal(triage(m, { ...SETTINGS, spamFilter: TRUSTED }), null);
});

const CUSTOMERS: Array<Partial<TriageMessage> & { text: string; html?: string | null }> = [
  {
    // A customer forwards the phishing that pretends to be us and asks whether it is real.
    subject: 'WG: Ihr Konto wurde gesperrt',
    text: 'Hallo, ist diese Mail von Ihnen?\n\n-------- Weitergeleitete Nachricht --------\nIhr Konto wurde gesperrt. Bestätigen Sie Ihre Identität: Klicken Sie hier http://198.51.100.4/login\nSie haben gewonnen! 1.000.000 EUR warten.',
  },
  {
    subject: 'Fwd: You have been selected!!!',
    text: 'Is this real? See the attached mail. Claim your prize of US$ 2,500,000.00, click here.',
    attachesMessage: true,
  },
  {
    // Odd in shape only (bare-IP links, hidden text, pictures, little text), saying nothing a spammer says.
    subject: 'Bestellung 9001',
    text: 'Bitte prüfen Sie meine Bestellung 9001. Klick Konto overlay',
    html: '<style>.x{display:none}</style><p>Bitte prüfen Sie meine Bestellung 9001.</p><img src="x"><a href="http://203.0.113.9/a">Klick</a> <a href="http://203.0.113.9/b">Konto</a> <a href="http://203.0.113.9/c">overlay</a>',
  },
  {
    subject: 'Rechnung RE-2024-0117 doppelt abgebucht',
    text: 'Sehr geehrte Damen und Herren,\n\nder Betrag von 1.249,00 € wurde zweimal abgebucht. Bitte erstatten Sie ihn.\nKundennummer 4711\n\nMit freundlichen Grüßen\nErika Muster\nTel. 030 1234567',
  },
  {
    subject: 'Passwort vergessen – Konto gesperrt?',
    text: 'Hallo, ich kann mich nicht mehr anmelden, mein Konto ist gesperrt. Können Sie mein Passwort zurücksetzen? Ist das kostenlos?\nDanke, Max',
  },
  {
    subject: 'Where is my delivery?',
    from: 'john.smith1985@gmail.com',
    text: 'Hi, I ordered on Monday (order 100234) and tracking https://tracking.example.com/abc says nothing. Click the link and see. Can you help?\n\nThanks,\nJohn\nhttps://www.linkedin.com/in/john',
  },
  {
    subject: 'Fwd: Vertrag kündigen',
    text: '---------- Forwarded message ---------\nVon: Erika Muster\nBetreff: Vertrag\n\nIch möchte meinen Vertrag zum 31.12. kündigen. Bitte bestätigen Sie die Kündigung.\n',
    headers: h({ 'Message-ID': '<b@example.de>', Date: 'Mon, 1 Dec 2026 10:00:00 +0100', To: 'support@example.test' }),
  },
  {
    subject: 'Newsletter abbestellen',
    html: '<p>Bitte nehmen Sie mich aus dem Verteiler. <a href="https://shop.example.de/abmelden">https://shop.example.de/abmelden</a></p><img src="cid:logo">',
    text: 'Bitte nehmen Sie mich aus dem Verteiler. https://shop.example.de/abmelden',
  },
  {
    subject: 'Re: Your account has been suspended?',
    text: 'I got a mail saying "your account has been suspended, verify your account" – is that from you? Looks like phishing.\n\n> Your account has been suspended',
    headers: h({ 'Message-ID': '<c@example.de>', 'In-Reply-To': '<x@example.test>', To: 'support@example.test' }),
  },
];

test('support questions a person wrote are not held (German and English, links, forwards, signatures, odd HTML)', () => {
  for (const c of CUSTOMERS) {
    const m = message(c);
    assert.equal(spamContent(m), null, `${m.subject}: ${JSON.stringify(spamContentScore(m))}`);
    assert.equal(triage(m, SETTINGS), null, m.subject);
  }
});

test('typical spam reaches it: prizes, advance-fee fraud, pills, phishing in German', () => {
  const spam: Array<Partial<TriageMessage> & { text: string; html?: string | null }> = [
    { subject: 'WINNING NOTIFICATION!!!', text: SPAM_TEXT, to: [] },
    {
      subject: 'URGENT BUSINESS ASSISTANCE',
      text: 'Dear Friend, I need your urgent business assistance as next of kin to transfer the sum of 25 million dollars. Strictly confidential.',
    },
    {
      subject: 'Ihr Konto wurde gesperrt',
      fromName: 'service@paypal.com',
      from: 'x1234567@mailer.example.ru',
      text: 'Ihr Konto wurde gesperrt. Bestätigen Sie Ihre Identität: Klicken Sie hier.',
      html: '<a href="http://198.51.100.4/login">https://www.paypal.com/de/login</a>',
    },
    { subject: 'V1AGRA 80% OFF', text: 'Cheap v.i.a.g.r.a and cialis from our online pharmacy, order now. Click here http://bit.ly/x' },
  ];
  for (const s of spam) {
    const m = message(s);
    assert.equal(triage(m, SETTINGS)?.class, 'spam', `${m.subject}: ${JSON.stringify(spamContentScore(m))}`);
  }
});

test('DMARC aggregate and SMTP TLS reports, Exchange rules and out-of-office in other languages get no draft', () => {
  const cases: Array<[Partial<TriageMessage>, string]> = [
    [
      { subject: 'Report Domain: example.test Submitter: google.com Report-ID: <123456789>', from: 'noreply-dmarc@google.com' },
      'auto_reply',
    ],
    [
      {
        subject: 'Report domain: example.test Submitter: enterprise.protection.outlook.com Report-ID: 1a2b',
        from: 'dmarcreport@microsoft.com',
      },
      'auto_reply',
    ],
    [{ subject: 'DMARC', from: 'dmarc-reports@mail.example.net', partTypes: ['application/gzip'] }, 'auto_reply'],
    [{ subject: 'SMTP TLS report', from: 'reports@example.net', partTypes: ['application/tlsrpt+gzip'] }, 'auto_reply'],
    [{ subject: 'Réponse automatique : votre demande' }, 'auto_reply'],
    [{ subject: 'Automatyczna odpowiedź: test' }, 'auto_reply'],
    [{ subject: 'Hello', headers: h({ 'X-MS-Exchange-Generated-Message-Source': 'Mailbox Rules Agent' }) }, 'auto_reply'],
    [{ subject: 'New sign-in', from: 'notifications@github.example' }, 'no_reply'],
    [{ subject: 'Your invoice', from: 'bounce+abc123@mail.shop.example' }, 'no_reply'],
    [{ subject: 'Order', from: 'mailer@shop.example' }, 'no_reply'],
  ];
  for (const [over, cls] of cases) assert.equal(triage(message({ text: 'x', ...over }), SETTINGS)?.class, cls, over.subject);
  for (const from of ['info@handwerk.example.de', 'service@kunde.example', 'notifications.team@kunde.example']) {
    assert.equal(triage(message({ text: 'Guten Tag, eine Frage zu Ihrer Rechnung.', from }), SETTINGS), null, from);
  }
});

test('TRIAGE_SPAM_SCORE and TRIAGE_SPAM_FILTER_TRUSTED are validated with the rest', () => {
  const env = { DATABASE_URL: 'mysql://u:p@localhost/db' };
  assert.deepEqual(loadConfig(env, { imap: false }).triage.spamFilter, { threshold: 5, trusted: false });
  assert.deepEqual(loadConfig({ ...env, TRIAGE_SPAM_SCORE: '6.5', TRIAGE_SPAM_FILTER_TRUSTED: 'yes' }, { imap: false }).triage.spamFilter, {
    threshold: 6.5,
    trusted: true,
  });
  assert.throws(
    () => loadConfig({ ...env, TRIAGE_SPAM_SCORE: 'high', TRIAGE_SPAM_FILTER_TRUSTED: 'maybe' }, { imap: false }),
    (err: Error) =>
      /TRIAGE_SPAM_SCORE must be a number between -100 and 1000/.test(err.message) &&
      /TRIAGE_SPAM_FILTER_TRUSTED must be true or false/.test(err.message),
  );
});

test('hostile bodies (an unclosed link tag, walls of digits, capitals or links) are read without error and hold nothing alone', () => {
  for (const body of [
    '<a ' + 'href=http://x.example '.repeat(5000),
    '1,000'.repeat(20000),
    'A'.repeat(90000),
    'http://a.example/ '.repeat(5000),
  ]) {
    const m = message({ text: body, html: body, subject: 'Frage' });
    assert.equal(spamContent(m), null, body.slice(0, 30));
  }
  const deceptive = message({
    text: 'Ihr Konto wurde gesperrt.',
    html: '<a href="http://evil.example/x">https://www.bank.example/login</a> <a href="https://www.bank.example/">www.bank.example</a>',
  });
  assert.ok(spamContentScore(deceptive).signs.some((x) => x.sign === 'a link shows one address and leads to another'));
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attributionLine, lastMessage, layoutReply, textToHtml } from '../../src/email/send/reply-layout';

const erika = { fromName: 'Erika Mustermann', fromAddress: 'erika@customer.example', date: new Date('2026-12-02T09:30:00Z') };

test('the attribution line in German and English', () => {
  assert.equal(attributionLine(erika, 'de'), 'Am 2. Dezember 2026 schrieb Erika Mustermann:');
  assert.equal(attributionLine(erika, 'en'), 'On 2 December 2026, Erika Mustermann wrote:');
  assert.equal(attributionLine({ ...erika, fromName: '' }, 'en'), 'On 2 December 2026, erika@customer.example wrote:');
  assert.equal(attributionLine({ ...erika, date: null }, 'de'), 'Erika Mustermann schrieb:');
  assert.equal(attributionLine({ ...erika, fromName: 'Eve\r\nBcc: x <y>' }, 'en'), 'On 2 December 2026, Eve Bcc: x y wrote:');
});

test('only the last message is quoted: its text up to the quote of an earlier mail', () => {
  assert.equal(lastMessage('Hallo,\n\nneu.\n\nAm 1. Dezember 2026 schrieb Support:\n> alt'), 'Hallo,\n\nneu.');
  assert.equal(lastMessage('Hi\n> old\nmore'), 'Hi');
  assert.equal(lastMessage('Hi\n-----Original Message-----\nFrom: x'), 'Hi');
});

test('plain part: format=flowed, soft breaks end in a space, no line over 78, quoted lines keep their prefix, space-stuffing', () => {
  const long = 'Wir haben die Rechnung geprüft und den Betrag korrigiert; die neue Rechnung kommt in den nächsten Tagen per Post.';
  const { text } = layoutReply({
    body: `${long}\nFrom here on\n>not a quote`,
    language: 'de',
    signature: { text: '-- \nIhr Support-Team' },
    original: { ...erika, text: `Guten Tag,\n${long} ${long}` },
  });
  const lines = text.split('\n');
  assert.ok(
    lines.every((l) => l.replace(/ $/, '').length <= 78),
    text,
  );
  assert.match(lines[0]!, / $/, 'a soft break ends in a space');
  assert.ok(lines.includes(' From here on'), 'space-stuffed');
  assert.ok(lines.includes(' >not a quote'), 'space-stuffed');
  assert.equal(lines.filter((l) => l === '-- ').length, 1, 'one signature separator, kept as it is');
  assert.ok(lines.includes('Am 2. Dezember 2026 schrieb Erika Mustermann:'));
  const quoted = lines.slice(lines.indexOf('Am 2. Dezember 2026 schrieb Erika Mustermann:') + 1).filter(Boolean);
  assert.ok(
    quoted.every((l) => l.startsWith('> ')),
    quoted.join('\n'),
  );
  // Unflowed again (RFC 3676: a line ending in a space joins the next), the long lines come back whole.
  const unflowed = text.replace(/ \n(?!-- \n)/g, ' ');
  assert.ok(unflowed.includes(long));
});

test('HTML part: escaped, paragraphs, no links made, the operator’s signature and the logo by cid', () => {
  const { html } = layoutReply({
    body: 'Hallo <b>Erika</b> & Co,\nsiehe https://example.com\n\nGruß',
    language: 'en',
    signature: { text: 'Support', html: '<p><strong>Support</strong></p>', logoCid: 'logo@signature' },
    original: { ...erika, text: '<script>x</script>' },
  });
  assert.match(html, /<p>Hallo &lt;b&gt;Erika&lt;\/b&gt; &amp; Co,<br>\nsiehe https:\/\/example\.com<\/p>\n<p>Gruß<\/p>/);
  assert.doesNotMatch(html, /<a\b/);
  assert.match(html, /<p><strong>Support<\/strong><\/p><p><img src="cid:logo@signature"/);
  assert.match(
    html,
    /On 2 December 2026, Erika Mustermann wrote:<\/p>\n<blockquote type="cite"[^>]*><p>&lt;script&gt;x&lt;\/script&gt;<\/p><\/blockquote>/,
  );
  assert.equal(textToHtml('a\n\n\n b'), '<p>a</p>\n<p>b</p>');
});

test('a body that already ends with the signature does not get it twice; without an original nothing is quoted', () => {
  const { text, html } = layoutReply({ body: 'Danke.\n\nIhr Support-Team', language: 'de', signature: { text: 'Ihr Support-Team' } });
  assert.equal(text, 'Danke.\n\nIhr Support-Team\n');
  assert.doesNotMatch(html, /blockquote|signature/);
});

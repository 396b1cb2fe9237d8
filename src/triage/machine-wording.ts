/**
 * Machine mail told by what it says rather than by its headers: an out-of-office notice that set no
 * Auto-Submitted (a mailbox rule, a web mailer's vacation function), and a notice from a
 * notification sender that asks not to be answered. Pure helpers of src/triage/triage.ts.
 *
 * No single phrase decides: a person writes "I was out of office last week" or quotes "please do
 * not reply to this email". Each verdict needs two independent signals (see autoReplyWording and
 * noReplyNotice), found in the message's own words, above any quoted or forwarded text, and the
 * reason names them. Written here because the auto-reply libraries on npm read headers only.
 */
import type { SpamBody } from './spam-content';

export interface WordingSigns {
  /** Where a reply would go (Reply-To, else From), lower-case. */
  replyAddress: string | null;
  subject: string;
  body?: SpamBody;
}

/** A notice is short; a person's message that mentions an absence goes on about something else. */
export const NOTICE_MAX_WORDS = 150;
/** Only the start of a long body is read: a notice says what it is at once. */
const READ_CHARS = 4000;

// The start of quoted or forwarded text: what follows is someone else's words.
const QUOTE_START =
  /^(>|-{2,}\s*(original message|ursprüngliche nachricht|forwarded message|weitergeleitete nachricht)|(am|on) .{5,120}(schrieb|wrote)\s*(?::\s*)?$|(from|von|gesendet|sent)\s*:\s.*$)/im;

/** The message's own text: the plain body (else the HTML's text), up to the first quote. */
export function ownText(body: SpamBody | undefined): string {
  if (!body) return '';
  const text = body.text.trim()
    ? body.text
    : (body.html ?? '').replace(/<(style|script)[^>]*>[\s\S]*?<\/\1>/gi, ' ').replace(/<[^<>]+>/g, ' ');
  const head = text.slice(0, READ_CHARS).replace(/&nbsp;/g, ' ');
  const quote = QUOTE_START.exec(head);
  return (quote ? head.slice(0, quote.index) : head).replace(/\s+/g, ' ').trim();
}

export function words(text: string): number {
  return (text.match(/\p{L}{2,}/gu) ?? []).length;
}

// Present-tense absence of the writer, English and German ("I am out of the office until", "Ich bin
// bis 14.10. nicht im Büro", "bin im Urlaub"). Past tense ("I was out of office") is a person talking.
const ABSENCE = [
  /\bi(?:'m| am| will be)\s+(?:currently\s+|now\s+)?(?:out of (?:the )?office|away(?: from (?:the |my )?(?:office|desk))?|on (?:annual |parental |sick |maternity |paternity )?(?:leave|vacation|holiday|holidays)|travell?ing|off work|not in the office|out of town)\b/i,
  /\b(?:currently|presently)\s+(?:out of (?:the )?office|away|on (?:leave|vacation|holiday))\b/i,
  /\bich\s+bin\s+(?:[^!?\n]{0,60}?\s)?(?:nicht im b(?:ü|ue)ro|au(?:ß|ss)er haus|im urlaub|abwesend|nicht erreichbar|nicht anwesend|auf dienstreise|in elternzeit)\b/i,
  /\b(?:bin|sind)\s+(?:derzeit|zurzeit|momentan|leider|bis)\b[^.!?\n]{0,60}?\b(?:nicht im b(?:ü|ue)ro|au(?:ß|ss)er haus|im urlaub|abwesend|nicht erreichbar)\b/i,
];
// What an out-of-office says next: when the writer is back, who to ask meanwhile, that mail waits.
const RETURN_OR_STANDIN = [
  /\b(?:back|return(?:ing)?|in the office again)\s+(?:on|by|from|after|at)\b/i,
  /\b(?:upon|on|after) my return\b/i,
  /\blimited (?:access to|ability to (?:read|check|respond to)) (?:my )?e-?mails?\b/i,
  /\bno access to (?:my )?e-?mails?\b/i,
  /\b(?:for|in case of|if it is|if this is) (?:an? )?(?:urgent|immediate|pressing)\b/i,
  /\bwill (?:respond|reply|get back to you|answer)\b[^.!?\n]{0,60}\b(?:return|back)\b/i,
  /\bwieder (?:im b(?:ü|ue)ro|erreichbar|da|zur(?:ü|ue)ck|f(?:ü|ue)r sie da)\b/i,
  /\bnach meiner r(?:ü|ue)ckkehr\b/i,
  /\bin dringenden f(?:ä|ae)llen\b/i,
  /\b(?:keinen|eingeschr(?:ä|ae)nkten|nur eingeschr(?:ä|ae)nkt(?:en)?) zugriff\b/i,
  /\bihre (?:e-?mail|nachricht) wird nicht weitergeleitet\b/i,
];
// The notice says itself that no person wrote it (not "I only got an automatic reply").
const SAYS_AUTOMATIC = [
  /\bthis is an? auto(?:matic|mated|matically generated)?(?:[- ]generated)? (?:reply|response|message|notification|e-?mail)\b/i,
  /^(?:automatic reply|auto[- ]?reply|automatische antwort)\b/i,
  /\bdies(?:e|es)? (?:ist eine )?(?:e-?mail|nachricht|antwort)?\s*(?:wurde |ist )?automatisch (?:erstellt|generiert|versandt|versendet|verschickt)\b/i,
  /\bdies ist eine automatische\b/i,
];
// Subject words of an absence notice anywhere in the subject ("Re: Ihre Anfrage (Abwesenheit)").
const SUBJECT_ABSENCE =
  /\b(?:out of (?:the )?office|ooo|abwesen(?:d|heit\w*)|urlaub|vacation|holiday|away|automatic reply|auto[- ]?reply|autoreply|automatische antwort|nicht im b(?:ü|ue)ro)\b/i;

function firstMatch(patterns: readonly RegExp[], text: string): string | null {
  for (const p of patterns) {
    const m = p.exec(text);
    if (m) return m[0].trim().slice(0, 60);
  }
  return null;
}

/**
 * An out-of-office notice without headers: a short own text that states the writer's absence or
 * that it is automatic, plus one more sign (a return date or stand-in, an absence subject, or the
 * other of the two). The reason quotes what matched.
 */
export function autoReplyWording(m: WordingSigns): string | null {
  const text = ownText(m.body);
  if (!text || words(text) > NOTICE_MAX_WORDS) return null;
  const absence = firstMatch(ABSENCE, text);
  const automatic = firstMatch(SAYS_AUTOMATIC, text);
  if (!absence && !automatic) return null;
  const returning = firstMatch(RETURN_OR_STANDIN, text);
  const subject = SUBJECT_ABSENCE.exec(m.subject)?.[0] ?? null;
  const signs = [
    absence && `"${absence}"`,
    automatic && `"${automatic}"`,
    returning && `"${returning}"`,
    subject && `subject word "${subject}"`,
  ].filter((s): s is string => Boolean(s));
  // Two signs, one of them a statement of absence or automation. A return date without an absence
  // subject also needs a text that asks nothing: "I'm away from Monday, back on the 9th: can you
  // send the invoice before?" is a person.
  const asks = text.includes('?');
  const enough = subject !== null || (absence !== null && automatic !== null) || (returning !== null && !asks);
  return enough ? `out-of-office wording in a short message: ${signs.join(' + ')}` : null;
}

// Local parts (whole, or a token of them) that only systems send from. Wider than the sender rule of
// src/triage/triage.ts, which decides alone: here the notice wording must agree.
const NOTIFICATION_SENDER =
  /(^|[-_.+])(notifications?|notify|notifier|alerts?|mailer|system|auto|automated|automailer|robot|bot|daemon|news|newsletter|updates?|info|service|services|order|orders|shop|billing|invoice|invoices|account|accounts|security|status|reports?|admin|wordpress|jira|confluence|github|gitlab)([-_.+0-9]|$)/i;
// A notice asks not to be answered or says that no one reads the answer.
const DO_NOT_REPLY = [
  /\bplease do not (?:reply|respond)(?: directly)? to this (?:e-?mail|message|address|notification)\b/i,
  /\bdo not (?:reply|respond) to this (?:e-?mail|message|address|notification)\b/i,
  /\bthis (?:e-?mail|mailbox|address|inbox) (?:is|was) not (?:monitored|checked|read)\b/i,
  /\breplies to this (?:e-?mail|message|address) (?:are|will) not\b/i,
  /\bthis (?:e-?mail|message|notification) (?:was|has been|is) (?:sent|generated|created) automatically\b/i,
  /\bthis is an? (?:automated|automatic|auto-generated|system-generated) (?:message|e-?mail|notification)\b/i,
  /\bbitte (?:antworten sie nicht|nicht antworten|antworte nicht)(?: direkt)? auf diese (?:e-?mail|nachricht|benachrichtigung)\b/i,
  /\bbitte nicht auf diese (?:e-?mail|nachricht) antworten\b/i,
  /\bantworten auf diese (?:e-?mail|nachricht) werden nicht\b/i,
  /\bdiese (?:e-?mail|nachricht|benachrichtigung) wurde automatisch (?:erstellt|generiert|versandt|versendet|verschickt)\b/i,
  /\bdiese (?:e-?mail-)?adresse (?:wird nicht|kann keine)\b/i,
];

/** A notice from a system sender that says not to answer it: sender token plus notice wording. */
export function noReplyNotice(m: WordingSigns): string | null {
  const local = (m.replyAddress ?? '').split('@')[0] ?? '';
  const token = NOTIFICATION_SENDER.exec(local)?.[2];
  if (!token) return null;
  const said = firstMatch(DO_NOT_REPLY, ownText(m.body));
  return said ? `notification sender ${m.replyAddress} ("${token}") + notice wording "${said}"` : null;
}

import { TRIAGE_CLASSES, TRIAGE_NEVER_ALLOWED, type TriageClass, type TriageVerdict } from './triage-classes';
import {
  autoHeader,
  deliveryReport,
  exchangeGenerated,
  feedbackReport,
  listManager,
  machineReport,
  topReportType,
  verpReturnPath,
  type AutomaticSigns,
} from './triage-automatic';
import { duplicateOf, type MailboxAddresses } from './triage-duplicate';
import { autoReplyWording, noReplyNotice } from './machine-wording';
import { bounceWording } from './bounce-wording';
import { spamContent, type SpamBody } from './spam-content';
import { DEFAULT_SPAM_FILTER, spamFilterVerdict, type SpamFilterSettings } from './spam-filter-headers';

/**
 * Intake triage: which incoming mail deserves no reply at all. Pure (no I/O): it sees what the
 * parser found in the top-level headers and the MIME structure, nothing else.
 */

/** What triage needs to know about one parsed message. */
export interface TriageMessage extends AutomaticSigns {
  /** Sender address, lower-case. */
  from: string | null;
  /** Where a reply would go (Reply-To), lower-case; null when the message has none. */
  replyTo: string | null;
  subject: string;
  /** Top-level header values by lower-case name, unfolded, in message order. */
  headers: Record<string, string[]>;
  /** Content types of the parts below the top level (lower-case, without parameters). */
  partTypes: string[];
  /** Recipients in To and Cc, lower-case, in header order (which of our mailboxes answers). */
  to?: string[];
  cc?: string[];
  /** The registry mailbox this copy came in through. */
  mailboxId?: string;
  /** The text and HTML bodies, for the built-in spam check; without them it reads the headers only. */
  body?: SpamBody;
  /** What the spam filter intake asked (TRIAGE_SPAMD) said; absent when none was asked or it did not answer. */
  filterScore?: AskedSpamScore;
  /** Why the team knows the sender (it wrote before, the team replied to it): a spam score alone then only flags. */
  knownSender?: string;
}

/** A spam filter's score for one message, with who gave it (`spamd 127.0.0.1:783`). */
export interface AskedSpamScore {
  score: number;
  rules: string[];
  by: string;
}

export type { TriageVerdict };

/** `TRIAGE_ALLOW` entry: answer this sender anyway (for one class, or for every class). */
export interface TriageAllowRule {
  class: TriageClass | '*';
  kind: 'sender' | 'domain';
  value: string;
}

export interface TriageSettings {
  /** Our own sending addresses (SMTP_FROM and OWN_ADDRESSES), lower-case. */
  ownAddresses: string[];
  allow: TriageAllowRule[];
  /** The enabled mailboxes of the registry and their addresses: a message to several is answered once. */
  mailboxes?: MailboxAddresses[];
  /** The spam filter's score threshold and whether its "not spam" is believed (TRIAGE_SPAM_*). */
  spamFilter?: SpamFilterSettings;
}

const BOUNCE_SENDER = /^(mailer-daemon|postmaster|post_master|mail-daemon|mailerdaemon)([+.-].*)?$/i;
// A whole token of the local part: noreply@, no-reply-billing@, gmail-noreply@; not noreplying.fan@.
const NO_REPLY_SENDER = /(^|[-_.+])(no[-_.]?reply|do[-_.]?not[-_.]?reply|donotreply|no[-_.]?answer)([-_.+]|$)/i;
// Whole local parts (or their part before a `+` tag) that only machines send from: notifications@,
// mailer@, bounce+tag@, automated@. Not info@, service@ or support@: people write from those.
const MACHINE_SENDER = /^(notifications?|notify|mailer|bounces?|automated|auto-?mailer|system-?mail)(\+.*)?$/i;

// Anchored at the start: "Fwd: Undelivered Mail ..." from a colleague is a person asking about it.
const BOUNCE_SUBJECT =
  /^(undelivered mail returned to sender|undeliverable|undelivered|delivery status notification \((failure|delay)\)|mail delivery failed|delivery failure|failure notice|returned mail|message not delivered|mail delivery (system|subsystem)|unzustellbar|nicht zustellbar|non remis|unzustellbare nachricht|zustellung fehlgeschlagen|warning: could not send message)/i;

const AUTO_REPLY_SUBJECT =
  /^(out of (the )?office|r[ée]ponse automatique|absence du bureau|respuesta autom[áa]tica|fuera de la oficina|risposta automatica|automatisch antwoord|afwezig(heidsbericht)?|resposta autom[áa]tica|automatyczna odpowied[źz]|odpowied[źz] automatyczna|automatick[áa] odpov[ěe][ďd]|autosvar|automaattinen vastaus|automatic reply|auto(matic)?[ -]?(reply|response)|autoreply|abwesenheitsnotiz|abwesenheit|automatische antwort|urlaubsabwesenheit|away from (the )?office|on vacation|i am out of the office|ich bin (ab|vom|bis|von|derzeit|zurzeit|momentan)\b.*\bnicht im b(ü|ue)ro|nicht im b(ü|ue)ro|abwesend:)/i;

const READ_RECEIPT_SUBJECT = /^(read|gelesen|lu|read receipt|lesebestätigung)\s*:/i;

function first(headers: Record<string, string[]>, name: string): string | undefined {
  return headers[name]?.[0]?.trim();
}

function localPart(address: string | null): string {
  return (address ?? '').split('@')[0] ?? '';
}

function allowed(rules: TriageAllowRule[], cls: TriageClass, address: string | null): boolean {
  const sender = (address ?? '').toLowerCase();
  if (!sender) return false;
  const domain = sender.split('@')[1] ?? '';
  return rules.some(
    (r) =>
      (r.class === '*' || r.class === cls) &&
      ((r.kind === 'sender' && r.value === sender) || (r.kind === 'domain' && (domain === r.value || domain.endsWith(`.${r.value}`)))),
  );
}

function ownAddress(m: TriageMessage, s: TriageSettings): string | null {
  return m.from && s.ownAddresses.includes(m.from) ? `sender ${m.from} is our own address (mail loop)` : null;
}

/** The spam filter's verdict, when it gave one that counts (src/triage/spam-filter-headers.ts). */
function spamFilter(m: TriageMessage, s: TriageSettings): string | null {
  const verdict = spamFilterVerdict(m.headers, s.spamFilter ?? DEFAULT_SPAM_FILTER);
  return verdict?.spam ? verdict.reason : null;
}

/**
 * The score of the filter intake asked itself (TRIAGE_SPAMD) against TRIAGE_SPAM_SCORE. After the
 * machine-mail classes, so a bounce stays a bounce (spamd scores a returned spam as spam). Its "not
 * spam" does not end the checks: the built-in check still runs (the two miss different spam).
 */
function spamAsked(m: TriageMessage, s: TriageSettings): string | null {
  const threshold = (s.spamFilter ?? DEFAULT_SPAM_FILTER).threshold;
  if (!m.filterScore || m.filterScore.score < threshold) return null;
  const rules = m.filterScore.rules.slice(0, 5).join(', ');
  return `${m.filterScore.by}: score ${m.filterScore.score} ≥ ${threshold}${rules ? ` (${rules})` : ''}`;
}

/**
 * The built-in check (src/triage/spam-content.ts), only when no filter verdict counts: a trusted
 * filter's "not spam" stands. It runs after the machine-mail classes, so a bounce that quotes a
 * spam message stays a bounce (and links the send it reports on).
 */
function spamBuiltIn(m: TriageMessage, s: TriageSettings): string | null {
  if (spamFilterVerdict(m.headers, s.spamFilter ?? DEFAULT_SPAM_FILTER)) return null;
  return spamContent(m);
}

function bounce(m: TriageMessage): string | null {
  if (topReportType(m) === 'delivery-status') return 'multipart/report; report-type=delivery-status';
  if (m.partTypes.includes('message/delivery-status')) return 'message/delivery-status part';
  const report = deliveryReport(m);
  if (report) return report;
  if (m.headers['x-failed-recipients']) return `X-Failed-Recipients: ${first(m.headers, 'x-failed-recipients')?.slice(0, 80)}`;
  if (BOUNCE_SENDER.test(localPart(m.from))) return `sender ${m.from}`;
  if (BOUNCE_SUBJECT.test(m.subject)) return `subject "${m.subject.slice(0, 80)}"`;
  return bounceWording({ replyAddress: m.replyTo ?? m.from, subject: m.subject, body: m.body });
}

function autoReply(m: TriageMessage): string | null {
  const submitted = first(m.headers, 'auto-submitted');
  if (submitted && !/^no\b/i.test(submitted)) return `Auto-Submitted: ${submitted}`;
  for (const h of ['x-autoreply', 'x-autorespond', 'x-autoresponder']) {
    const v = first(m.headers, h);
    if (v !== undefined && !/^(no|false|0)$/i.test(v)) return `${h}: ${v}`;
  }
  const precedence = first(m.headers, 'precedence');
  if (precedence && /^auto[_-]reply$/i.test(precedence)) return `Precedence: ${precedence}`;
  if (topReportType(m) === 'disposition-notification') return 'read receipt (disposition-notification)';
  const header = autoHeader(m) ?? exchangeGenerated(m) ?? machineReport(m);
  if (header) return header;
  if (AUTO_REPLY_SUBJECT.test(m.subject)) return `subject "${m.subject.slice(0, 80)}"`;
  if (READ_RECEIPT_SUBJECT.test(m.subject) && m.partTypes.includes('message/disposition-notification')) return 'read receipt';
  return autoReplyWording({ replyAddress: m.replyTo ?? m.from, subject: m.subject, body: m.body });
}

function list(m: TriageMessage): string | null {
  const listId = first(m.headers, 'list-id');
  if (listId) return `List-Id: ${listId.slice(0, 80)}`;
  if (m.headers['list-unsubscribe']) return 'List-Unsubscribe header';
  const precedence = first(m.headers, 'precedence');
  if (precedence && /^(bulk|list|junk)$/i.test(precedence)) return `Precedence: ${precedence}`;
  return listManager(m) ?? verpReturnPath(m);
}

function noReply(m: TriageMessage): string | null {
  // A web form's notification often comes from noreply@ with the customer in Reply-To: answer that.
  const target = m.replyTo ?? m.from;
  if (target && NO_REPLY_SENDER.test(localPart(target))) return `reply address ${target} takes no replies`;
  if (target && MACHINE_SENDER.test(localPart(target))) return `reply address ${target} is a machine's (notifications, mailer, bounces)`;
  return noReplyNotice({ replyAddress: target, subject: m.subject, body: m.body });
}

const CHECKS: Array<[TriageClass, (m: TriageMessage, s: TriageSettings) => string | null]> = [
  ['own_address', ownAddress],
  ['spam', spamFilter],
  ['feedback_report', feedbackReport],
  ['bounce', bounce],
  ['auto_reply', autoReply],
  ['list', list],
  ['no_reply', noReply],
  ['spam', spamAsked],
  ['spam', spamBuiltIn],
  // Last: a copy that would not be answered anyway keeps the class that says why.
  ['duplicate', (m, s) => duplicateOf(m, s.mailboxes)],
];

/**
 * The first class that applies, or null when the mail deserves a draft. `TRIAGE_ALLOW` lets a
 * sender through any class except those of TRIAGE_NEVER_ALLOWED: answering ourselves is a loop,
 * an abuse complaint goes to a person, a duplicate is answered by the other mailbox.
 */
export function triage(m: TriageMessage, s: TriageSettings): TriageVerdict | null {
  return triageDecision(m, s).verdict;
}

/**
 * The verdict, and `spamFlag`: the spam reason that did not hold the mail because its sender is
 * known (`knownSender`): a human correspondent is never held by a score alone, the score makes the
 * draft one a person must review (src/email/draft/draft.activities.ts).
 */
export function triageDecision(m: TriageMessage, s: TriageSettings): { verdict: TriageVerdict | null; spamFlag: string | null } {
  let spamFlag: string | null = null;
  for (const [cls, check] of CHECKS) {
    const reason = check(m, s);
    if (!reason) continue;
    // RFC 3834 5.2: mail marked Auto-Submitted (other than `no`) is never answered, whatever the rule.
    const binding = TRIAGE_NEVER_ALLOWED.includes(cls) || reason.startsWith('Auto-Submitted:');
    if (!binding && allowed(s.allow, cls, m.from)) continue;
    if (cls === 'spam' && m.knownSender) {
      spamFlag ??= `${reason}; not held: known sender (${m.knownSender})`;
      continue;
    }
    return { verdict: { class: cls, reason }, spamFlag };
  }
  return { verdict: null, spamFlag };
}

/**
 * Message-IDs a bounce reports on: the Message-ID lines of the returned message or its headers
 * (message/rfc822 or text/rfc822-headers part, or quoted in the text), then In-Reply-To and
 * References. `raw` is the message as latin1 text; only IDs we sent will match anything.
 */
export function bouncedMessageIds(raw: string, outer: { inReplyTo: string | null; references: string[] }): string[] {
  const blank = /\r?\n\r?\n/.exec(raw);
  const body = blank ? raw.slice(blank.index) : '';
  const ids: string[] = [];
  const pattern = /^(?:>\s*)?(?:original-)?(?:x-original-)?message-id:[ \t]*(<[^<>\s]+>)/gim;
  for (const m of body.matchAll(pattern)) ids.push(m[1]!);
  if (outer.inReplyTo) ids.push(outer.inReplyTo);
  ids.push(...outer.references);
  return [...new Set(ids)];
}

/**
 * Parses `TRIAGE_ALLOW`: `[class:]sender=addr` or `[class:]domain=example.com` entries separated
 * by `;`, e.g. `list:domain=partner.example;sender=alerts@bank.example`. Returns rules or problems.
 */
export function parseTriageAllow(text: string | undefined): { rules: TriageAllowRule[]; problems: string[] } {
  const rules: TriageAllowRule[] = [];
  const problems: string[] = [];
  const classes = TRIAGE_CLASSES.filter((c) => !TRIAGE_NEVER_ALLOWED.includes(c));
  for (const entry of (text ?? '')
    .split(';')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const m = /^(?:(\w+):)?(sender|domain)=(.+)$/.exec(entry);
    const cls = m?.[1];
    const value = m?.[3]?.trim().toLowerCase() ?? '';
    const valid =
      m !== null &&
      (cls === undefined || (classes as readonly string[]).includes(cls)) &&
      (m[2] === 'sender' ? /^[^\s@]+@[^\s@]+$/.test(value) : /^[a-z0-9.-]+\.[a-z0-9-]+$/.test(value));
    if (!valid) {
      problems.push(
        `TRIAGE_ALLOW entry "${entry}" is not [class:]sender=address or [class:]domain=name (class one of ${classes.join(', ')})`,
      );
      continue;
    }
    rules.push({ class: (cls as TriageClass | undefined) ?? '*', kind: m![2] as TriageAllowRule['kind'], value });
  }
  return { rules, problems };
}

/** Parses `OWN_ADDRESSES` (comma or semicolon separated); SMTP_FROM is added by the caller. */
export function parseOwnAddresses(text: string | undefined): { addresses: string[]; problems: string[] } {
  const addresses: string[] = [];
  const problems: string[] = [];
  for (const a of (text ?? '')
    .split(/[,;\s]+/)
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean)) {
    if (/^[^\s@<>()",;:]+@[^\s@<>()",;:]+$/.test(a)) addresses.push(a);
    else problems.push(`OWN_ADDRESSES entry "${a}" is not an email address`);
  }
  return { addresses, problems };
}

/** The triage view of a parsed message (structurally: what src/email/intake/mail-parser returns). */
export function triageMessage(
  p: {
    from: { name?: string; address: string } | null;
    replyTo: { address: string } | null;
    to?: Array<{ address: string }>;
    cc?: Array<{ address: string }>;
    subject: string;
    triage: Pick<TriageMessage, 'headers' | 'partTypes' | 'nestedReportTypes' | 'attachesMessage' | 'body'>;
  },
  mailboxId?: string,
): TriageMessage {
  return {
    from: p.from?.address.toLowerCase() ?? null,
    fromName: p.from?.name ?? '',
    replyTo: p.replyTo?.address.toLowerCase() ?? null,
    to: (p.to ?? []).map((a) => a.address.toLowerCase()),
    cc: (p.cc ?? []).map((a) => a.address.toLowerCase()),
    subject: p.subject,
    headers: p.triage.headers,
    partTypes: p.triage.partTypes,
    nestedReportTypes: p.triage.nestedReportTypes ?? [],
    attachesMessage: p.triage.attachesMessage ?? false,
    ...(p.triage.body ? { body: p.triage.body } : {}),
    ...(mailboxId !== undefined ? { mailboxId } : {}),
  };
}

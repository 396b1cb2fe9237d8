/**
 * Synthetic support mail for the retrieval bench: German customer questions on a dozen topics,
 * our replies to some of them, and a knowledge folder. Deterministic (seeded), so runs compare.
 */
import type { IndexableEmail } from '../../src/retrieval/vector-index.port';

const TOPICS: Array<{ subject: string; sentences: string[] }> = [
  {
    subject: 'Rechnung doppelt abgebucht',
    sentences: [
      'Die Rechnung wurde zweimal von meinem Konto abgebucht.',
      'Bitte veranlassen Sie eine Gutschrift für die doppelte Abbuchung.',
      'Der Betrag erscheint zweimal auf dem Kontoauszug.',
      'Können Sie die Lastschrift zurückbuchen?',
    ],
  },
  {
    subject: 'Passwort zurücksetzen',
    sentences: [
      'Ich kann mich nicht mehr anmelden, das Passwort wird abgelehnt.',
      'Der Link zum Zurücksetzen des Passworts kommt nicht an.',
      'Nach drei Versuchen ist mein Benutzerkonto gesperrt.',
      'Die Zwei-Faktor-Anmeldung schickt keinen Code.',
    ],
  },
  {
    subject: 'Lieferung verspätet',
    sentences: [
      'Die Lieferung ist seit einer Woche überfällig.',
      'Die Sendungsverfolgung zeigt keinen neuen Status.',
      'Der Paketdienst hat das Paket beim Nachbarn abgegeben, dort ist es nicht.',
      'Wann wird die Bestellung versendet?',
    ],
  },
  {
    subject: 'Vertrag kündigen',
    sentences: [
      'Ich möchte meinen Vertrag zum nächsten Termin kündigen.',
      'Welche Kündigungsfrist gilt für meinen Tarif?',
      'Bitte bestätigen Sie die Kündigung schriftlich.',
      'Die Mindestlaufzeit ist nach meiner Rechnung abgelaufen.',
    ],
  },
  {
    subject: 'Rücksendung und Erstattung',
    sentences: [
      'Ich habe die Ware zurückgeschickt und warte auf die Erstattung.',
      'Das Retourenetikett lässt sich nicht drucken.',
      'Die Rücksendung ist laut Sendungsnummer angekommen.',
      'Wird der Kaufpreis auf die Kreditkarte erstattet?',
    ],
  },
  {
    subject: 'Adresse ändern',
    sentences: [
      'Wir sind umgezogen, bitte ändern Sie die Lieferadresse.',
      'Die Rechnungsadresse soll auf unsere Firma lauten.',
      'Im Kundenkonto lässt sich die Anschrift nicht speichern.',
      'Bitte senden Sie künftige Post an die neue Adresse.',
    ],
  },
  {
    subject: 'Produkt defekt',
    sentences: [
      'Das Gerät schaltet sich nach wenigen Minuten ab.',
      'Das Display zeigt seit dem Update nur noch Streifen.',
      'Ist der Schaden von der Garantie gedeckt?',
      'Der Akku lädt nicht mehr vollständig auf.',
    ],
  },
  {
    subject: 'Angebot für Rahmenvertrag',
    sentences: [
      'Wir benötigen ein Angebot für zweihundert Lizenzen.',
      'Gibt es Mengenrabatt bei einem Rahmenvertrag über drei Jahre?',
      'Bitte schicken Sie uns die Preisliste für Geschäftskunden.',
      'Unsere Einkaufsabteilung braucht das Angebot bis Monatsende.',
    ],
  },
  {
    subject: 'Datenschutz Auskunft',
    sentences: [
      'Ich verlange Auskunft über meine gespeicherten Daten nach DSGVO.',
      'Bitte löschen Sie mein Kundenkonto und alle personenbezogenen Daten.',
      'Wer ist Ihr Datenschutzbeauftragter?',
      'Der Newsletter kommt trotz Abmeldung weiterhin.',
    ],
  },
  {
    subject: 'Termin vereinbaren',
    sentences: [
      'Wann kann der Techniker zur Installation kommen?',
      'Der vereinbarte Termin am Dienstag passt uns leider nicht.',
      'Bitte schlagen Sie einen neuen Termin in der nächsten Woche vor.',
      'Die Montage dauert wie lange ungefähr?',
    ],
  },
];

const REPLIES = [
  'vielen Dank für Ihre Nachricht. Wir haben den Vorgang geprüft und melden uns innerhalb von zwei Werktagen.',
  'wir haben die Gutschrift veranlasst, der Betrag wird in drei bis fünf Tagen erstattet.',
  'bitte nutzen Sie den Link im Kundenkonto unter Sicherheit, um das Passwort neu zu setzen.',
  'die Kündigung ist vorgemerkt, Sie erhalten eine schriftliche Bestätigung per Post.',
  'der Techniker meldet sich telefonisch, um einen passenden Termin abzustimmen.',
];

/** A small deterministic generator (mulberry32): the same corpus on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rnd: () => number, items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;

export const ORGANISATIONS = 50;

/** Inbound email `i`: one correspondent per email, 50 organisations (as the pipeline bench's mail). */
export function inboundEmail(tag: string, i: number, rnd: () => number): IndexableEmail {
  const topic = pick(rnd, TOPICS);
  const body = Array.from({ length: 3 }, () => pick(rnd, topic.sentences)).join(' ');
  return {
    emailId: `${tag}-${i}`,
    threadId: `${tag}-t${i}`,
    account: 'support@example.test',
    mailbox: 'INBOX',
    direction: 'in',
    fromAddress: `kunde-${tag}-${i}@customer${i % ORGANISATIONS}.example`,
    subject: `${topic.subject} (Kundennummer ${10000 + i})`,
    text: `Guten Tag,\n\n${body}\n\nKundennummer ${10000 + i}, Bestellung ${200000 + i}.\n\nViele Grüße\nKunde ${i}`,
    date: null,
  };
}

/** Our reply to inbound email `i`, in its thread. */
export function replyTo(email: IndexableEmail, rnd: () => number): IndexableEmail {
  return {
    ...email,
    emailId: `${email.emailId}-reply`,
    direction: 'out',
    fromAddress: 'support@example.test',
    toAddresses: [email.fromAddress],
    subject: `Re: ${email.subject}`,
    text: `Guten Tag,\n\n${pick(rnd, REPLIES)}\n\nMit freundlichen Grüßen\nIhr Support-Team`,
  };
}

/** `files` knowledge files of four passages each, over the same topics. */
export function knowledgePassages(files: number, rnd: () => number): IndexableEmail[] {
  return Array.from({ length: files }, (_, f) => {
    const topic = TOPICS[f % TOPICS.length]!;
    const paragraphs = Array.from(
      { length: 4 },
      (_, p) => `${topic.subject}, Abschnitt ${p + 1}: ${topic.sentences.join(' ')} ${pick(rnd, REPLIES)}`,
    );
    return {
      emailId: `knowledge:faq-${f}.md`,
      threadId: `knowledge:faq-${f}.md`,
      mailbox: '',
      direction: 'knowledge' as const,
      fromAddress: '',
      subject: `FAQ ${f}: ${topic.subject}`,
      text: paragraphs.join('\n\n'),
      date: null,
    };
  });
}

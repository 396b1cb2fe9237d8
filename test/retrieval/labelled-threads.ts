/**
 * A small labelled set for retrieval quality: earlier threads (German and English support mail)
 * and new questions, each labelled with the earlier thread that answers it.
 */
export interface LabelledThread {
  thread: string;
  messages: Array<{ subject: string; text: string }>;
}

export const THREADS: LabelledThread[] = [
  {
    thread: 'double-charge',
    messages: [
      {
        subject: 'Rechnung doppelt abgebucht',
        text: 'Die Rechnung 2023-88 wurde zweimal von meinem Konto abgebucht. Bitte erstatten Sie den doppelten Betrag.',
      },
      {
        subject: 'Re: Rechnung doppelt abgebucht',
        text: 'Wir haben die doppelte Abbuchung geprüft und die Erstattung auf Ihr Konto veranlasst.',
      },
    ],
  },
  {
    thread: 'late-delivery-de',
    messages: [
      {
        subject: 'Lieferung verspätet',
        text: 'Meine Bestellung sollte am Montag geliefert werden, die Sendung ist aber immer noch nicht angekommen.',
      },
      {
        subject: 'Re: Lieferung verspätet',
        text: 'Der Paketdienst meldet eine Verzögerung im Verteilzentrum, die Zustellung erfolgt in zwei Tagen.',
      },
    ],
  },
  {
    thread: 'password-reset',
    messages: [
      {
        subject: 'Passwort zurücksetzen geht nicht',
        text: 'Der Link zum Zurücksetzen des Passworts ist abgelaufen, ich kann mich nicht mehr anmelden.',
      },
      { subject: 'Re: Passwort', text: 'Wir haben Ihnen einen neuen Link zum Zurücksetzen geschickt, er ist 24 Stunden gültig.' },
    ],
  },
  {
    thread: 'cancellation',
    messages: [
      {
        subject: 'Kündigung Vertrag',
        text: 'Hiermit kündige ich meinen Vertrag fristgerecht zum Ende der Laufzeit. Bitte bestätigen Sie die Kündigung.',
      },
      { subject: 'Re: Kündigung', text: 'Wir bestätigen die Kündigung Ihres Vertrags zum Ende der Mindestlaufzeit.' },
    ],
  },
  {
    thread: 'vat-number',
    messages: [
      {
        subject: 'Wrong VAT number on invoice',
        text: 'Our VAT number on invoice 4411 is wrong, please issue a corrected invoice with the right VAT ID.',
      },
      { subject: 'Re: VAT number', text: 'We have corrected the VAT ID and attached the new invoice.' },
    ],
  },
  {
    thread: 'damaged-package',
    messages: [
      {
        subject: 'Package arrived damaged',
        text: 'The package arrived with a broken box and the monitor screen is cracked. I would like a replacement.',
      },
      {
        subject: 'Re: damaged package',
        text: 'Sorry about the damage. A replacement monitor is on its way, no need to return the broken one.',
      },
    ],
  },
  {
    thread: 'api-rate-limit',
    messages: [
      {
        subject: 'API rate limit',
        text: 'Our integration hits the API rate limit of 100 requests per minute. Can the limit be raised for our account?',
      },
      { subject: 'Re: API rate limit', text: 'We raised the rate limit for your API key to 500 requests per minute.' },
    ],
  },
  {
    thread: 'two-factor',
    messages: [
      {
        subject: 'Lost phone, two-factor login',
        text: 'I lost my phone and cannot log in because of two-factor authentication. How do I recover my account?',
      },
      { subject: 'Re: two-factor', text: 'Use one of your recovery codes, or we can disable two-factor after verifying your identity.' },
    ],
  },
  {
    thread: 'return-label',
    messages: [
      { subject: 'Rücksendeetikett fehlt', text: 'Im Paket war kein Rücksendeetikett. Wie kann ich den Artikel zurückschicken?' },
      { subject: 'Re: Rücksendeetikett', text: 'Wir haben Ihnen ein Rücksendeetikett per E-Mail geschickt, drucken Sie es bitte aus.' },
    ],
  },
  {
    thread: 'gdpr-request',
    messages: [
      { subject: 'Auskunft nach DSGVO', text: 'Ich bitte um Auskunft nach Art. 15 DSGVO über alle zu meiner Person gespeicherten Daten.' },
      { subject: 'Re: Auskunft DSGVO', text: 'Anbei erhalten Sie die Auskunft über die gespeicherten personenbezogenen Daten.' },
    ],
  },
];

export const QUESTIONS: Array<{ expected: string; subject: string; text: string }> = [
  {
    expected: 'double-charge',
    subject: 'Betrag zweimal abgebucht',
    text: 'Bei mir wurde die letzte Rechnung auch doppelt vom Konto abgebucht. Bekomme ich eine Erstattung?',
  },
  {
    expected: 'late-delivery-de',
    subject: 'Wo bleibt meine Sendung?',
    text: 'Meine Bestellung ist seit einer Woche unterwegs und noch nicht geliefert. Gibt es eine Verzögerung?',
  },
  {
    expected: 'password-reset',
    subject: 'Anmeldung unmöglich',
    text: 'Ich kann mich nicht anmelden, der Link zum Zurücksetzen des Passworts funktioniert nicht.',
  },
  { expected: 'cancellation', subject: 'Vertrag beenden', text: 'Ich möchte meinen Vertrag kündigen. Zu wann ist die Kündigung möglich?' },
  {
    expected: 'vat-number',
    subject: 'Invoice correction needed',
    text: 'The invoice shows an old VAT ID for our company. Could you send a corrected invoice?',
  },
  {
    expected: 'damaged-package',
    subject: 'Broken on arrival',
    text: 'My order arrived and the screen is cracked, the box was damaged. Can I get a replacement?',
  },
  {
    expected: 'api-rate-limit',
    subject: 'Too many requests errors',
    text: 'We keep getting errors for too many requests from the API. What is our rate limit and can it be raised?',
  },
  {
    expected: 'two-factor',
    subject: 'Cannot log in after new phone',
    text: 'I got a new phone and the two-factor codes no longer work, so I cannot log in to my account.',
  },
  {
    expected: 'return-label',
    subject: 'Artikel zurückschicken',
    text: 'Wie schicke ich den Artikel zurück? Ich habe kein Etikett für die Rücksendung.',
  },
  {
    expected: 'gdpr-request',
    subject: 'Welche Daten speichern Sie?',
    text: 'Bitte teilen Sie mir mit, welche personenbezogenen Daten Sie über mich gespeichert haben (DSGVO).',
  },
];

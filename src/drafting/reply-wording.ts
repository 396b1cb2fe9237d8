/**
 * The fixed wording of a composed reply, per language: greeting, framing and closing. It names no
 * source: the ids a reply rests on are the draft's data, shown to the reviewer beside each
 * sentence, never read by the customer. An excerpt in the other language is introduced as such in
 * the reply's language, so the customer knows why it reads in German (or English).
 */
export type ReplyLanguage = 'de' | 'en';

const LANGUAGE_NAMES: Record<ReplyLanguage, Record<ReplyLanguage, string>> = {
  de: { de: 'Deutsch', en: 'Englisch' },
  en: { de: 'German', en: 'English' },
};

export const REPLY_WORDING = {
  de: {
    greeting: (name: string) => (name ? `Guten Tag ${name},` : 'Guten Tag,'),
    thanks: (subject: string) => (subject ? `vielen Dank für Ihre Nachricht zu „${subject}“.` : 'vielen Dank für Ihre Nachricht.'),
    answerIntro: 'Dazu können wir Ihnen Folgendes sagen:',
    otherLanguageIntro: (other: ReplyLanguage) =>
      `Der folgende Auszug aus unseren Unterlagen ist auf ${LANGUAGE_NAMES.de[other]} verfasst; wir geben ihn im Wortlaut wieder:`,
    quote: (text: string) => `„${text}“`,
    history: 'Die bisherige Korrespondenz zu diesem Thema haben wir dabei berücksichtigt.',
    alsoAbout: (subject: string) => (subject ? `Zu Ihrer weiteren Nachricht „${subject}“:` : 'Zu Ihrer weiteren Nachricht:'),
    nothing:
      'Zu Ihrer Frage haben wir in unserer Wissensdatenbank und in Ihrem bisherigen Schriftverkehr leider nichts Passendes gefunden. ' +
      'Eine Mitarbeiterin oder ein Mitarbeiter prüft Ihr Anliegen und meldet sich so bald wie möglich persönlich bei Ihnen.',
    followUp: 'Falls damit noch etwas offen ist, antworten Sie einfach auf diese E-Mail.',
    closing: 'Mit freundlichen Grüßen\nIhr Support-Team',
  },
  en: {
    greeting: (name: string) => (name ? `Hello ${name},` : 'Hello,'),
    thanks: (subject: string) => (subject ? `thank you for your message about "${subject}".` : 'thank you for your message.'),
    answerIntro: 'Here is what we can tell you:',
    otherLanguageIntro: (other: ReplyLanguage) =>
      `The following excerpt from our documentation is written in ${LANGUAGE_NAMES.en[other]}; we quote it word for word:`,
    quote: (text: string) => `"${text}"`,
    history: 'We have also taken the earlier correspondence on this topic into account.',
    alsoAbout: (subject: string) => (subject ? `About your other message "${subject}":` : 'About your other message:'),
    nothing:
      'Unfortunately we found nothing relevant to your question in our knowledge base or in your previous correspondence. ' +
      'A member of our team will look into it and get back to you personally as soon as possible.',
    followUp: 'If anything is still unclear, simply reply to this email.',
    closing: 'Best regards\nThe support team',
  },
} as const;

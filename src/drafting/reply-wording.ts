/**
 * The fixed wording of a composed reply, per language: greeting, framing, source notes and
 * closing. A source in the other language is named as such in the reply's language, so the
 * customer knows why an excerpt reads in German (or English) and the reviewer sees it at once.
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
    source: (id: string, other?: ReplyLanguage) => (other ? `(Quelle: ${id}, auf ${LANGUAGE_NAMES.de[other]})` : `(Quelle: ${id})`),
    otherLanguageIntro: (other: ReplyLanguage) =>
      `Der folgende Auszug aus unseren Unterlagen ist auf ${LANGUAGE_NAMES.de[other]} verfasst; wir geben ihn im Wortlaut wieder:`,
    quote: (text: string) => `„${text}“`,
    history: (id: string) => `Die bisherige Korrespondenz zu diesem Thema haben wir dabei berücksichtigt (Quelle: ${id}).`,
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
    source: (id: string, other?: ReplyLanguage) => (other ? `(Source: ${id}, in ${LANGUAGE_NAMES.en[other]})` : `(Source: ${id})`),
    otherLanguageIntro: (other: ReplyLanguage) =>
      `The following excerpt from our documentation is written in ${LANGUAGE_NAMES.en[other]}; we quote it word for word:`,
    quote: (text: string) => `"${text}"`,
    history: (id: string) => `We have also taken the earlier correspondence on this topic into account (Source: ${id}).`,
    alsoAbout: (subject: string) => (subject ? `About your other message "${subject}":` : 'About your other message:'),
    nothing:
      'Unfortunately we found nothing relevant to your question in our knowledge base or in your previous correspondence. ' +
      'A member of our team will look into it and get back to you personally as soon as possible.',
    followUp: 'If anything is still unclear, simply reply to this email.',
    closing: 'Best regards\nThe support team',
  },
} as const;

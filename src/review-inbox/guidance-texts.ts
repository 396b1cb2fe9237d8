/** UI text of the guidance page (and the guidance line on the review page), German and English. */
import type { Lang } from './i18n';

const en = {
  guidanceTitle: 'Guidance',
  guidanceIntro:
    'How this team writes: tone, form of address, phrases to avoid, promises never to make, when to hand over to a person. Every draft is written under the installation default, then its mailbox’s, then its category’s guidance (the more specific wins); at most {max} characters of it enter a prompt. A saved text is a new version: older versions stay as they were.',
  scope: 'Scope',
  scopeHint: 'default, mailbox:<id>, category:<name> or mailbox:<id>/category:<name>',
  version: 'Version',
  savedBy: 'Saved by',
  savedAt: 'Saved',
  text: 'Text',
  chars: 'characters',
  current: 'current',
  history: 'Versions of {scope}',
  showHistory: 'Versions',
  noGuidance: 'No guidance yet: drafts follow only the built-in rules.',
  noHistory: 'This scope has no guidance yet.',
  write: 'Write a new version',
  textHint: 'At most {max} characters. The offline drafter follows only a line "Closing: …" (or "Grußformel: …").',
  save: 'Save as new version',
  operatorOnly: 'Only operators write guidance; you can read it.',
  saved: 'Saved {scope} version {version}.',
  unchanged: '{scope} version {version} has this text already: nothing was saved.',
  draftGuidance: 'Guidance',
  draftNoGuidance: 'none',
};
export type GuidanceTexts = typeof en;

const de: GuidanceTexts = {
  guidanceTitle: 'Leitlinien',
  guidanceIntro:
    'Wie dieses Team schreibt: Ton, Anrede, Wendungen, die zu vermeiden sind, Zusagen, die nie gemacht werden, wann eine Person übernimmt. Jeder Entwurf folgt der Vorgabe der Installation, dann der seines Postfachs, dann der seiner Kategorie (die genauere gilt); höchstens {max} Zeichen davon gehen in einen Prompt. Ein gespeicherter Text ist eine neue Version: ältere Versionen bleiben, wie sie waren.',
  scope: 'Geltungsbereich',
  scopeHint: 'default, mailbox:<id>, category:<name> oder mailbox:<id>/category:<name>',
  version: 'Version',
  savedBy: 'Gespeichert von',
  savedAt: 'Gespeichert',
  text: 'Text',
  chars: 'Zeichen',
  current: 'aktuell',
  history: 'Versionen von {scope}',
  showHistory: 'Versionen',
  noGuidance: 'Noch keine Leitlinien: Entwürfe folgen nur den eingebauten Regeln.',
  noHistory: 'Für diesen Geltungsbereich gibt es noch keine Leitlinien.',
  write: 'Neue Version schreiben',
  textHint: 'Höchstens {max} Zeichen. Der Offline-Entwurf folgt nur einer Zeile „Grußformel: …“ (oder „Closing: …“).',
  save: 'Als neue Version speichern',
  operatorOnly: 'Nur der Betrieb schreibt Leitlinien; Sie können sie lesen.',
  saved: '{scope} Version {version} gespeichert.',
  unchanged: '{scope} Version {version} hat diesen Text schon: nichts gespeichert.',
  draftGuidance: 'Leitlinien',
  draftNoGuidance: 'keine',
};

export const GUIDANCE_TEXTS: Record<Lang, GuidanceTexts> = { de, en };

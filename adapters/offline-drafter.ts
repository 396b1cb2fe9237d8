import { detectLanguage } from '../lib/language';
import type { DraftRequest, DraftResult, Drafter } from '../ports/drafter';

/**
 * Used when no LLM endpoint is configured: a plain acknowledgement in the sender's language,
 * flagged `offline_template` so no reviewer mistakes it for a model's answer.
 */
export function createOfflineDrafter(): Drafter {
  return {
    name: 'offline',
    async draft(req: DraftRequest): Promise<DraftResult> {
      const language = detectLanguage(`${req.subject}\n${req.text}`);
      const name = req.from.name.trim();
      const subject = /^(re|aw):/i.test(req.subject) ? req.subject : `Re: ${req.subject}`;
      const body =
        language === 'de'
          ? `${name ? `Hallo ${name}` : 'Guten Tag'},\n\nvielen Dank für Ihre Nachricht zum Thema „${req.subject}“. ` +
            'Wir haben sie erhalten und melden uns so schnell wie möglich mit einer ausführlichen Antwort.\n\nMit freundlichen Grüßen\nIhr Support-Team'
          : `${name ? `Hello ${name}` : 'Hello'},\n\nthank you for your message about "${req.subject}". ` +
            'We have received it and will get back to you with a full answer as soon as possible.\n\nBest regards\nThe support team';
      return {
        subject,
        body,
        language,
        category: 'unclassified',
        prioritySuggestion: 'normal',
        confidence: 0.1,
        usedSourceIds: [],
        model: 'offline-template',
        promptVersion: 'offline-v1',
        flags: ['offline_template'],
      };
    },
  };
}

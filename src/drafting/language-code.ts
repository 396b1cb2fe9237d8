/**
 * The language a model names for its draft, as an ISO 639-1 code. The schema asks for one, but a
 * model may answer with a name ("English", "Deutsch") or with something else entirely: a code
 * model replaying a mailing list about R answered "R" for six of 34 drafts. Reports group drafts
 * by language and the inbox shows it, so a name becomes its code and anything else `und`.
 */
import ISO6391 from 'iso-639-1';

export const UNDETERMINED_LANGUAGE = 'und';

export function languageCode(said: unknown): string {
  if (typeof said !== 'string') return UNDETERMINED_LANGUAGE;
  const value = said.trim();
  // A code, perhaps with a region or script: de, en-US, pt_BR, zh-Hant.
  const code = /^([a-z]{2})(?:[-_][a-z0-9]{2,8})*$/i.exec(value)?.[1]?.toLowerCase();
  if (code && ISO6391.validate(code)) return code;
  // A name, in English or in the language itself.
  const named = ISO6391.getCode(value);
  return named ? named : UNDETERMINED_LANGUAGE;
}

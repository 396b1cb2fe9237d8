import { DRAFT_FLAGS } from './drafting.contract';
import { FAILURE_TYPES } from '../platform/contract';
import OpenAI, { APIConnectionTimeoutError, APIError } from 'openai';
import { buildDraftMessages, promptVersionOf, draftJsonSchema, parseDraftJson, type DraftJson } from './draft-prompt';
import { SUMMARY_JSON_SCHEMA, SUMMARY_PROMPT_VERSION, buildSummaryMessages, parseSummaryJson } from './case-summary-prompt';
import type { CaseSummaryMail, SummaryLanguage } from './case-summary';
import { DependencyError, TransientError } from '../platform/errors';
import { classifyHttpStatus } from '../platform/http-errors';
import type { CaseSummaryResult, DraftRequest, DraftResult, Drafter } from './drafter.port';
import { shortenedRequest, windowOverflow } from './prompt-window';
import { UNDETERMINED_LANGUAGE } from './language-code';

/** A prompt over the model's window is asked again shorter at most this often (src/drafting/prompt-window.ts). */
const MAX_SHORTENINGS = 2;

export interface OpenAiSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

function classifyOpenAiError(err: unknown): Error {
  if (err instanceof APIConnectionTimeoutError) {
    return new TransientError(`LLM did not answer in time: ${err.message}`, FAILURE_TYPES.llmTimeout, { cause: err });
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    return classifyHttpStatus('llm', err.status, err.message, err.headers?.get('retry-after'), err);
  }
  return new TransientError(`LLM unreachable: ${(err as Error).message ?? String(err)}`, FAILURE_TYPES.llmUnavailable, { cause: err });
}

/** Drafts through any OpenAI-compatible chat API with structured (JSON schema) output. */
export function createOpenAiDrafter(settings: OpenAiSettings): Drafter {
  // Temporal owns every retry, so the client's own retry loop is off.
  const client = new OpenAI({ baseURL: settings.baseUrl, apiKey: settings.apiKey, maxRetries: 0, timeout: settings.timeoutMs });

  async function complete(request: DraftRequest, repair: boolean): Promise<{ raw: string; model: string }> {
    const res = await client.chat.completions.create({
      model: settings.model,
      messages: buildDraftMessages(request, repair),
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'email_draft', schema: draftJsonSchema(request), strict: true },
      },
      temperature: 0.2,
    });
    return { raw: res.choices[0]?.message?.content ?? '', model: res.model || settings.model };
  }

  async function ask(request: DraftRequest, repair: boolean): Promise<{ raw: string; model: string }> {
    try {
      return await complete(request, repair);
    } catch (err) {
      throw classifyOpenAiError(err);
    }
  }

  /** The first answer, and the request it answers: a prompt over the model's window is asked again shorter, twice at most. */
  async function firstAnswer(request: DraftRequest): Promise<{ answer: { raw: string; model: string }; asked: DraftRequest }> {
    for (let tries = 0; ; tries++) {
      try {
        return { answer: await complete(request, false), asked: request };
      } catch (err) {
        const ratio = err instanceof APIError ? windowOverflow(err.status, err.message, err.code) : null;
        if (ratio === null || tries >= MAX_SHORTENINGS) throw classifyOpenAiError(err);
        request = shortenedRequest(request, ratio);
      }
    }
  }

  return {
    name: 'openai',
    async summarise(mails: CaseSummaryMail[], language: SummaryLanguage, options: { timeoutMs?: number } = {}): Promise<CaseSummaryResult> {
      let res;
      try {
        res = await client.chat.completions.create(
          {
            model: settings.model,
            messages: buildSummaryMessages(mails, language),
            response_format: { type: 'json_schema', json_schema: { name: 'case_summary', schema: SUMMARY_JSON_SCHEMA, strict: true } },
            temperature: 0.2,
          },
          { timeout: Math.min(settings.timeoutMs, options.timeoutMs ?? settings.timeoutMs) },
        );
      } catch (err) {
        throw classifyOpenAiError(err);
      }
      // No repair round: the summary is optional, and the caller has one made without the model.
      const text = parseSummaryJson(res.choices[0]?.message?.content ?? '');
      if (text === null) throw new DependencyError('LLM answered without a usable summary (not the JSON object asked for)');
      return { text, model: res.model || settings.model, promptVersion: SUMMARY_PROMPT_VERSION };
    },
    async draft(original: DraftRequest): Promise<DraftResult> {
      // Invalid JSON gets one retry with an adjusted prompt, then default values (an empty body: a
      // person writes the reply, manual_review).
      const first = await firstAnswer(original);
      const request = first.asked;
      let answer = first.answer;
      let json: DraftJson | null = parseDraftJson(answer.raw);
      const flags: string[] = request === original ? [] : [DRAFT_FLAGS.promptShortened];
      if (!json) {
        answer = await ask(request, true);
        json = parseDraftJson(answer.raw);
        flags.push(json ? DRAFT_FLAGS.jsonRepaired : DRAFT_FLAGS.jsonInvalidDefaults);
      }
      const known = new Set(request.context.map((c) => c.sourceId));
      if (!json) {
        return {
          ...defaultDraft(request),
          model: answer.model,
          promptVersion: promptVersionOf(request),
          flags,
        };
      }
      return {
        subject: json.subject,
        body: json.body,
        language: json.language,
        category: json.category,
        prioritySuggestion: json.priority_suggestion,
        confidence: json.confidence,
        usedSourceIds: json.used_source_ids.filter((id) => known.has(id)),
        // The draft step keeps only mails its context offered as open in the case.
        answersEmailIds: json.answered_case_mails,
        claims: json.claims.map((c) => ({ sentence: c.sentence, sourceIds: c.source_ids })),
        model: answer.model,
        promptVersion: promptVersionOf(request),
        flags,
      };
    },
  };
}

function defaultDraft(request: DraftRequest): Omit<DraftResult, 'model' | 'promptVersion' | 'flags'> {
  return {
    subject: request.subject.toLowerCase().startsWith('re:') ? request.subject : `Re: ${request.subject}`,
    body: '',
    language: UNDETERMINED_LANGUAGE,
    category: 'unknown',
    prioritySuggestion: 'normal',
    confidence: 0,
    usedSourceIds: [],
  };
}

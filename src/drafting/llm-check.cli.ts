/**
 * `email-rag llm check [--json]`: can drafts use the configured LLM endpoint? Asks what every draft
 * asks (structured output with `json_schema`), JSON mode as a hint, and the context window where the
 * server reports one; one verdict per question with its fix; exit 1 when drafts cannot use it.
 */
import type { Config } from '../platform/config';
import { CliError } from '../platform/cli-context';
import { JSON_OPTION, onlySubcommand, type CliCommand } from '../platform/cli-command';
import { llmCheck, renderLlmCheck, type LlmCheck } from './llm-check';
import { probeLlm } from './llm-probe.openai';
import { askContextSize } from './llm-server.http';

export async function checkLlm(config: Config): Promise<LlmCheck> {
  const { llm } = config;
  if (llm.mode === 'offline' || !llm.baseUrl)
    throw new CliError(
      'LLM_BASE_URL is not set: drafts come from the offline drafter, there is no model to check (docs/models.md: the settings of each server)',
      2,
    );
  const endpoint = { baseUrl: llm.baseUrl, apiKey: llm.apiKey, model: llm.model, timeoutMs: llm.timeoutMs };
  // One after the other: a local server with one slot would otherwise time the second request's wait.
  const jsonSchema = await probeLlm(endpoint, 'json_schema');
  const jsonObject = await probeLlm(endpoint, 'json_object');
  const context = await askContextSize(endpoint);
  const { count, maxChars } = config.draftExamples;
  return llmCheck({ ...endpoint, contextChars: llm.contextChars, exampleChars: count * maxChars }, { jsonSchema, jsonObject, context });
}

export const llmCommands: CliCommand[] = [
  {
    name: 'llm check',
    usage: `llm check [--json]                      can drafts use the LLM (LLM_BASE_URL, LLM_MODEL): structured output
                                        (json_schema), JSON mode, answer time, model, context window; the fix
                                        of each problem; exit 1 if drafts cannot use it`,
    options: JSON_OPTION,
    accepts: (rest) => rest.length === 0,
    run: (ctx) => checkLlm(ctx.config()),
    format: renderLlmCheck,
    exitCode: (c) => (c.ok ? undefined : 1),
  } satisfies CliCommand<LlmCheck>,
  onlySubcommand('llm', 'check'),
];

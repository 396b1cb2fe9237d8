/**
 * A prompt longer than the model's window. The context has its own budget (LLM_CONTEXT_CHARS), but
 * the customer's mail goes in up to 20,000 characters and a mail of code, logs or tables takes far
 * more tokens per character than prose: on a real archive a mail with a data dump came to 18,420
 * tokens for a window of 8,192. Servers refuse such a prompt with HTTP 400 (llama.cpp, vLLM,
 * OpenAI, Azure OpenAI; Ollama cuts it silently). Refused, the draft failed for good and a person
 * wrote the reply; now the drafter asks once more with a shorter prompt, sized by what the server
 * said, and the draft is flagged so the reviewer knows the model did not see everything.
 */
import type { DraftRequest } from './drafter.port';

/** The longest mail text a prompt carries (characters); longer mails are cut here already. */
export const EMAIL_TEXT_CHARS = 20_000;
/** Room for what does not shrink (instructions, schema, the answer): the prompt is cut a little more than the ratio says. */
const MARGIN = 0.8;
/** When the server says the prompt is too long but not by how much. */
const UNKNOWN_RATIO = 0.5;

/**
 * How much of the prompt fits (0–1), when an error says the prompt exceeds the model's window;
 * null for any other error.
 */
export function windowOverflow(status: number | undefined, message: string, code?: string | null): number | null {
  if (status !== 400 && status !== 413) return null;
  // llama.cpp: "request (18420 tokens) exceeds the available context size (8192 tokens)"
  const llama = /\((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/.exec(message);
  if (llama) return fits(Number(llama[2]), Number(llama[1]));
  // OpenAI, Azure OpenAI, vLLM: "maximum context length is 4096 tokens. However, you requested 5000 tokens" / "your messages resulted in 5000 tokens"
  const openai = /maximum context length is (\d+) tokens\. However, (?:you requested|your messages resulted in) (\d+) tokens/.exec(message);
  if (openai) return fits(Number(openai[1]), Number(openai[2]));
  if (code === 'context_length_exceeded' || /exceed[^.]*context|context (?:length|size|window)[^.]*exceed/i.test(message))
    return UNKNOWN_RATIO;
  return null;
}

function fits(window: number, asked: number): number {
  return asked > 0 && window > 0 && window < asked ? window / asked : UNKNOWN_RATIO;
}

/**
 * The request cut to `ratio` of its size: no examples (they only shape the form), the mail's text
 * and the context each to that share, the context's lowest-ranked items first.
 */
export function shortenedRequest(req: DraftRequest, ratio: number): DraftRequest {
  const share = Math.max(0.05, Math.min(1, ratio * MARGIN));
  const text = req.text.slice(0, EMAIL_TEXT_CHARS);
  const contextChars = req.context.reduce((n, c) => n + c.text.length, 0);
  let room = Math.floor(contextChars * share);
  const context: DraftRequest['context'] = [];
  for (const c of req.context) {
    if (room <= 0) break;
    context.push(c.text.length <= room ? c : { ...c, text: c.text.slice(0, room) });
    room -= c.text.length;
  }
  const shorter: DraftRequest = { ...req, text: text.slice(0, Math.floor(text.length * share)), context };
  delete shorter.examples;
  return shorter;
}

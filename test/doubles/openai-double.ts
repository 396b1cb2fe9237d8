/**
 * TEST DOUBLE of an OpenAI-compatible LLM endpoint (no real model can run here). It speaks the
 * HTTP API the real `openai` client uses, so the product's drafter is exercised end to end
 * through the official client. Tests script its behaviour: latency, HTTP errors, invalid JSON.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GENERAL_CATEGORY } from '../../src/drafting/drafting.contract';

export type Behaviour =
  | { kind: 'reply' }
  | { kind: 'content'; content: string }
  /** An HTTP error; `message` and `code` as OpenAI words its errors (default: `scripted <status>`). */
  | { kind: 'status'; status: number; retryAfter?: string; message?: string; code?: string }
  | { kind: 'delay'; ms: number; then?: Behaviour }
  /** Answers once `until` settles: a request the test holds for as long as its scenario needs. */
  | { kind: 'hold'; until: Promise<void>; then?: Behaviour };

export type Scripted = Behaviour & { for?: string };

export interface RecordedRequest {
  path: string;
  body: {
    model?: string;
    messages?: Array<{ role: string; content: string }>;
    response_format?: { type: string; json_schema?: { name?: string; schema?: JsonSchemaObject } };
    tools?: unknown;
  };
}

interface JsonSchemaObject {
  properties?: Record<string, { type?: string }>;
  required?: string[];
}

export interface OpenAiDouble {
  baseUrl: string;
  /** Every request, oldest first; stays empty when started with `keepRequests: false`. */
  requests: RecordedRequest[];
  /** How many requests arrived (in every mode). */
  requestCount(): number;
  /**
   * Behaviours for the next chat requests, in order; afterwards it replies normally. A behaviour
   * with `for` is taken only by a request asking for that JSON schema (`email_draft`,
   * `case_summary`): with cases on, a case's summary request can arrive between the script and
   * the draft it was meant for.
   */
  script(...behaviours: Scripted[]): void;
  /**
   * While on, every chat request with `response_format: json_schema` is refused with HTTP 400 and
   * OpenAI's wording, as a server or model without structured outputs answers (older OpenAI
   * models, servers that know only `json_object`); scripted behaviours still come first.
   */
  refuseJsonSchema(on: boolean): void;
  stop(): Promise<void>;
}

/** The schemas the double answers with a draft as it always did (the summary falls back on its own). */
const DRAFT_LIKE = new Set([undefined, 'email_draft', 'case_summary']);

/** Any other schema (e.g. `email-rag doctor`'s probe): an object with every required string property filled. */
function schemaReply(schema: JsonSchemaObject | undefined): string {
  const out: Record<string, string> = {};
  for (const name of schema?.required ?? []) if (schema?.properties?.[name]?.type === 'string') out[name] = 'ok';
  return JSON.stringify(out);
}

/** A plausible reply built from the request: the subject and language of the delimited email. */
function categoryOf(schema: JsonSchemaObject | undefined): string {
  const names = (schema?.properties?.category as { enum?: string[] } | undefined)?.enum;
  if (!names || names.length === 0) return 'support';
  return names.includes(GENERAL_CATEGORY) ? GENERAL_CATEGORY : names[0]!;
}

function replyFor(body: RecordedRequest['body']): string {
  const requested = body.response_format?.json_schema;
  if (requested && !DRAFT_LIKE.has(requested.name)) return schemaReply(requested.schema);
  const user = body.messages?.find((m) => m.role === 'user')?.content ?? '';
  const subject = /subject="([^"]*)"/.exec(user)?.[1] ?? 'your message';
  const german = /\b(und|bitte|danke|ich|nicht|mit)\b/i.test(user.split('<context>')[0] ?? '');
  const ids = [...user.matchAll(/<item id="([^"]+)"/g)].map((m) => m[1]);
  // Like a model that answers everything it is shown: every other open mail of the case.
  const openInCase = [...user.matchAll(/<item id="([^"]+)"[^>]*open_in_case="true"/g)].map((m) => m[1]);
  return JSON.stringify({
    language: german ? 'de' : 'en',
    // A model keeps to the category list it is given: `general` (every list the product sends has it), else its first.
    category: categoryOf(requested?.schema),
    priority_suggestion: german ? 'high' : 'normal',
    subject: `Re: ${subject}`,
    body: german
      ? `Guten Tag,\n\nvielen Dank für Ihre Nachricht zu "${subject}". Wir kümmern uns darum.\n\nViele Grüße\nSupport`
      : `Hello,\n\nthank you for your message about "${subject}". We are on it.\n\nBest regards\nSupport`,
    confidence: 0.8,
    used_source_ids: ids.slice(0, 2),
    answered_case_mails: openInCase,
  });
}

function send(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(payload));
}

/**
 * `keepRequests: false` (long benchmarks) only counts the requests, so memory does not grow with
 * every prompt.
 */
export async function startOpenAiDouble(opts: { keepRequests?: boolean } = {}): Promise<OpenAiDouble> {
  const keep = opts.keepRequests ?? true;
  const requests: RecordedRequest[] = [];
  let count = 0;
  const queue: Scripted[] = [];
  let refuseSchema = false;
  const refusal: Behaviour = { kind: 'status', status: 400 };

  const respond = async (b: Behaviour, body: RecordedRequest['body'], res: ServerResponse): Promise<void> => {
    if (b.kind === 'delay' || b.kind === 'hold') {
      await (b.kind === 'hold' ? b.until : new Promise((r) => setTimeout(r, b.ms)));
      if (!res.writableEnded && !res.destroyed) await respond(b.then ?? { kind: 'reply' }, body, res);
      return;
    }
    if (b === refusal) {
      send(res, 400, {
        error: {
          message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
          type: 'invalid_request_error',
          param: 'response_format',
          code: null,
        },
      });
      return;
    }
    if (b.kind === 'status') {
      send(
        res,
        b.status,
        { error: { message: b.message ?? `scripted ${b.status}`, type: 'scripted', ...(b.code ? { code: b.code } : {}) } },
        b.retryAfter ? { 'retry-after': b.retryAfter } : {},
      );
      return;
    }
    const content = b.kind === 'content' ? b.content : replyFor(body);
    send(res, 200, {
      id: `chatcmpl-double-${count}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? 'double-model',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    });
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: RecordedRequest['body'] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as RecordedRequest['body'];
      } catch {
        send(res, 400, { error: { message: 'invalid JSON request' } });
        return;
      }
      const path = req.url ?? '';
      count += 1;
      if (keep) requests.push({ path, body });
      if (!path.endsWith('/chat/completions')) {
        send(res, 404, { error: { message: `no route ${path}` } });
        return;
      }
      const refused = refuseSchema && body.response_format?.type === 'json_schema';
      const schema = body.response_format?.json_schema?.name;
      const next = queue.findIndex((b) => b.for === undefined || b.for === schema);
      const scripted = next >= 0 ? queue.splice(next, 1)[0] : undefined;
      void respond(scripted ?? (refused ? refusal : { kind: 'reply' }), body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    requestCount: () => count,
    script: (...b) => queue.push(...b),
    refuseJsonSchema: (on) => {
      refuseSchema = on;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

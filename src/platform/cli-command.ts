import { userInfo } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Client } from '@temporalio/client';
import type { Config } from '../platform/config';
import { errorMessage } from './errors';
import { CliError, connectTemporal } from './cli-context';

/** The options of a command, as `node:util` parseArgs takes them. */
export type CliOptions = NonNullable<ParseArgsConfig['options']>;

/** What a command gets from the command line: the words after its name and the option values. */
export interface CliArgs {
  positionals: string[];
  values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  /** `--json` was given (only where the command has the option). */
  json: boolean;
}

/** What the runner lends a command; each piece is made on first use and closed when the command ends. */
export interface CliContext {
  /** The configuration (with the IMAP section checked when the command `needs` it). */
  config(): Config;
  /** The Temporal client, connected on first use. */
  temporal(): Promise<Client>;
  /** A wrong command line: the message, then the whole usage (exit 2). */
  usageError(message: string): CliError;
  /** The one word the command takes, or a usage error naming `what`. */
  one(positionals: string[], what: string): string;
}

/** One subcommand of `email-rag`. */
export interface CliCommand<R = unknown> {
  /** The words that name it, e.g. `status` or `cases list`. */
  name: string;
  /** Its lines of the usage text, as printed (without the two leading spaces of each line). */
  usage?: string;
  options?: CliOptions;
  /** The IMAP settings must be complete (the commands that poll or send). */
  needs?: { imap?: boolean };
  /** Whether the words after the name fit; if not, a shorter name of the group takes the command line. */
  accepts?(positionals: string[]): boolean;
  run(ctx: CliContext, args: CliArgs): Promise<R>;
  /** The text of the result; with `--json` the result is printed as JSON instead. Without it, a string result is printed as is, and a list of strings line by line. */
  format?(result: R, args: CliArgs): string;
  /** The exit code a result asks for (after it was printed). */
  exitCode?(result: R): number | undefined;
}

export const JSON_OPTION = { json: { type: 'boolean', default: false } } as const satisfies CliOptions;

/** Who acts when `--by` is not given. */
export function defaultActor(): string {
  try {
    return process.env.EMAIL_RAG_USER || userInfo().username;
  } catch {
    return 'cli';
  }
}

/** The `--by` value when it is given, else who runs the command. */
export function byOrActor(values: CliArgs['values']): string {
  return typeof values.by === 'string' ? values.by : defaultActor();
}

/** A string option's value, or undefined. */
export function text(values: CliArgs['values'], name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** The command line of a group fits none of its subcommands: one usage line for the group, then the whole usage. */
export function groupUsage(word: string, usage: string): CliCommand<never> {
  return {
    name: word,
    run: (ctx) => Promise.reject(ctx.usageError(`usage: email-rag ${usage}`)),
  };
}

/** A group with one subcommand: `<word>` without it, or with another. */
export function onlySubcommand(word: string, sub: string): CliCommand<never> {
  return {
    name: word,
    run: (ctx, { positionals }) => {
      ctx.one(positionals, `subcommand (${sub})`);
      return Promise.reject(new CliError(`unknown subcommand: ${word} ${positionals[0]}`, 2));
    },
  };
}

export interface CliProgram {
  commands: CliCommand[];
  /** The usage text: `head`, every command's usage lines, `tail`. */
  head: string;
  tail: string;
  loadConfig(opts: { imap: boolean }): Config;
}

export function usageText(program: CliProgram): string {
  const lines = program.commands.flatMap((c) => (c.usage ? c.usage.split('\n').map((l) => `  ${l}`) : []));
  return [program.head, ...lines, program.tail].join('\n');
}

/** The command of the group whose name covers the most words, and the words left for it. */
function find(group: CliCommand[], positionals: string[]): { command: CliCommand; rest: string[] } | undefined {
  const byLength = [...group].sort((a, b) => b.name.split(' ').length - a.name.split(' ').length);
  for (const command of byLength) {
    const words = command.name.split(' ').slice(1);
    const rest = positionals.slice(words.length);
    if (words.every((w, i) => positionals[i] === w) && (command.accepts?.(rest) ?? true)) return { command, rest };
  }
  return undefined;
}

function parse(argv: string[], group: CliCommand[], usage: string): { positionals: string[]; values: CliArgs['values'] } {
  // A group's subcommands share one set of options: they are read before the subcommand is known.
  const options = Object.assign({}, ...group.map((c) => c.options ?? {})) as CliOptions;
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new CliError(`${errorMessage(err)}\n${usage}`, 2);
  }
}

function print<R>(command: CliCommand<R>, result: R, args: CliArgs): void {
  if (command.format) console.log(args.json ? JSON.stringify(result, null, 2) : command.format(result, args));
  else if (typeof result === 'string') console.log(result);
  else if (Array.isArray(result)) for (const line of result as unknown[]) console.log(line);
  const code = command.exitCode?.(result);
  if (code !== undefined) process.exitCode = code;
}

/** Runs the command `argv` names: help, lookup, options, then the command with its connections closed after it. */
export async function runCli(program: CliProgram, argv: string[]): Promise<void> {
  const usage = usageText(program);
  const [word, ...words] = argv;
  if (word === undefined || word === 'help' || word === '--help' || word === '-h') {
    console.log(usage);
    return;
  }
  const group = program.commands.filter((c) => c.name.split(' ')[0] === word);
  if (group.length === 0) throw new CliError(`unknown command: ${word}\n${usage}`, 2);
  const { positionals, values } = parse(words, group, usage);
  const found = find(group, positionals);
  if (!found) throw new CliError(`unknown command: ${argv.join(' ')}\n${usage}`, 2);
  const { command, rest } = found;
  let config: Config | undefined;
  let temporal: Awaited<ReturnType<typeof connectTemporal>> | undefined;
  const ctx: CliContext = {
    config: () => (config ??= program.loadConfig({ imap: command.needs?.imap === true })),
    temporal: async () => (temporal ??= await connectTemporal(ctx.config())).client,
    usageError: (message) => new CliError(`${message}\n${usage}`, 2),
    one: (list, what) => {
      if (list.length !== 1 || !list[0]) throw ctx.usageError(`expected exactly one ${what}`);
      return list[0];
    },
  };
  const args: CliArgs = { positionals: rest, values, json: values.json === true };
  try {
    print(command, await command.run(ctx, args), args);
  } finally {
    await temporal?.close();
  }
}

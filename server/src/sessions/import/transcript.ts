/**
 * What a reader of another agent's transcript (claude.ts, codex.ts, pi.ts) hands the conversion
 * (conversation.ts): the conversation it holds, in order, as steps in the agent's own vocabulary —
 * tool calls under the agent's tool names, with its arguments — and what it left out. The readers
 * know nothing of Santra's tools or records; the conversion knows nothing of the file formats.
 *
 * A transcript that cannot be read is refused whole with a TranscriptError naming the file and
 * the line, before anything is written.
 */
import type { ImportFormat, Usage } from '#protocol';

/** An assistant's content block, as the agent wrote it. */
export type SourceBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  /** `args`: the arguments as the agent recorded them (an object, or a string such as a patch). */
  | { type: 'tool_call'; id: string; name: string; args: unknown };

export type Step =
  /** What the person wrote: it starts a run. */
  | { type: 'prompt'; text: string; at?: string }
  /** Text on the user's side that the person did not type (a command's output, a notice). */
  | { type: 'context'; text: string; at?: string }
  /** `model`: as `provider/model` where the transcript says the provider. */
  | { type: 'assistant'; blocks: SourceBlock[]; model?: string; at?: string }
  | { type: 'tool_result'; callId: string; output: string; isError: boolean; at?: string; line: number }
  /** Tokens the agent recorded for the model calls since the last usage step. */
  | { type: 'usage'; usage: Usage }
  /**
   * The agent replaced the conversation before this point by `summary`; `kept` are the steps it
   * kept after it, already met before (they join the conversation again, not the transcript).
   */
  | { type: 'compaction'; summary: string; kept: Step[]; at?: string };

export interface Transcript {
  format: ImportFormat;
  /** The agent's id of the conversation (Claude Code's sessionId, Codex's, pi's), when it has one. */
  id?: string;
  /** The directory the agent worked in: its absolute paths under it become relative ones. */
  cwd?: string;
  startedAt?: string;
  steps: Step[];
  /** Lines that are not part of the conversation (bookkeeping, sub-agents, other branches). */
  skippedLines: number;
  /** Lines left out that a reader may want to know about, each naming its line. */
  warnings: string[];
}

/** The agents' names, as messages and bounded text say them. */
export const AGENT_NAMES: Readonly<Record<ImportFormat, string>> = {
  claude: 'Claude Code',
  codex: 'Codex',
  pi: 'pi',
};

/** A transcript that cannot be imported; the message names the file and, where it can, the line. */
export class TranscriptError extends Error {
  readonly line: number | undefined;

  constructor(message: string, line?: number) {
    super(message);
    this.name = 'TranscriptError';
    this.line = line;
  }
}

/** One line of a JSON Lines transcript, parsed to an object. */
export interface JsonLine {
  /** 1-based. */
  number: number;
  value: Record<string, unknown>;
}

/**
 * The lines of `content` as JSON objects; blank lines are passed over. Throws a TranscriptError
 * for a line that is not a JSON object, naming it: a transcript is imported whole or not at all.
 */
export function jsonLines(content: string, name: string, format: ImportFormat): JsonLine[] {
  const text = content.startsWith('\uFEFF') ? content.slice(1) : content;
  const rows = text.split('\n');
  const lines: JsonLine[] = [];
  for (const [index, row] of rows.entries()) {
    const line = row.endsWith('\r') ? row.slice(0, -1) : row;
    if (line.trim() === '') continue;
    const number = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const last = index === rows.length - 1;
      throw new TranscriptError(
        last
          ? `${name}:${number}: the last line is cut off (not valid JSON); is ${AGENT_NAMES[format]} still writing the transcript? Import it again when it has stopped.`
          : `${name}:${number}: not valid JSON (${line.length} characters); the file is damaged, or not a ${AGENT_NAMES[format]} transcript. Nothing was imported.`,
        number,
      );
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new TranscriptError(
        `${name}:${number}: not a JSON object; this is not a ${AGENT_NAMES[format]} transcript. Nothing was imported.`,
        number,
      );
    lines.push({ number, value: value as Record<string, unknown> });
  }
  if (lines.length === 0) throw new TranscriptError(`${name}: the transcript is empty; nothing to import.`);
  return lines;
}

/** `value` if it is a string, else undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `value` if it is a plain object, else undefined. */
export function obj(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A non-negative whole count, or 0. */
export function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/** A fault in a line the format defines: throws, naming the line and what is wrong. */
export function damaged(name: string, line: number, what: string): never {
  throw new TranscriptError(`${name}:${line}: ${what}. Nothing was imported.`, line);
}

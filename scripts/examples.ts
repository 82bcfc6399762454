/**
 * The example exchanges in protocol-spec/examples/*.jsonl: one JSON object per line, in order.
 * A line is `{"from": "client" | "server", "message": {…}}`, `{"from": "client", "raw": "…"}` for
 * a body that is deliberately not JSON, or `{"note": "…"}`. A message marked `"invalid": true`
 * deliberately breaks its schema (to show the error it gets), and the tests check that it does.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface ExampleLine {
  from?: 'client' | 'server';
  message?: Record<string, unknown>;
  raw?: string;
  note?: string;
  invalid?: boolean;
}

export interface Example {
  name: string;
  file: string;
  lines: ExampleLine[];
}

export async function loadExamples(dir: string): Promise<Example[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.jsonl')).sort();
  return Promise.all(
    files.map(async (file) => {
      const text = await readFile(join(dir, file), 'utf8');
      const lines = text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line, index) => {
          try {
            return JSON.parse(line) as ExampleLine;
          } catch (error) {
            throw new Error(`${file}:${index + 1}: not JSON (${(error as Error).message})`, { cause: error });
          }
        });
      return { name: file.replace(/\.jsonl$/, ''), file, lines };
    }),
  );
}

function describeMessage(message: Record<string, unknown>): string {
  if (typeof message.method === 'string') {
    return Object.hasOwn(message, 'id')
      ? `\`${message.method}\` request ${JSON.stringify(message.id)}`
      : `\`${message.method}\` notification`;
  }
  return `${Object.hasOwn(message, 'error') ? 'error response' : 'response'} to ${JSON.stringify(message.id)}`;
}

/** Markdown for an example: each message with its direction, notes as prose. */
export function renderExample(example: Example): string {
  const parts: string[] = [`_From \`protocol-spec/examples/${example.file}\`._`, ''];
  for (const line of example.lines) {
    if (line.note !== undefined) {
      parts.push(line.note, '');
      continue;
    }
    const arrow = line.from === 'client' ? '→ client to server' : '← server to client';
    if (line.raw !== undefined) {
      parts.push(`${arrow}, a body that is not valid JSON:`, '', '```text', line.raw, '```', '');
    } else if (line.message !== undefined) {
      parts.push(
        `${arrow}, ${describeMessage(line.message)}:`,
        '',
        '```json',
        JSON.stringify(line.message, null, 2),
        '```',
        '',
      );
    }
  }
  return parts.join('\n').trimEnd();
}

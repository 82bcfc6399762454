/**
 * A fake OpenAI provider in its own process, so that generating the stream does not compete with
 * the benchmark's client for one event loop. It prints its base URL on the first stdout line and
 * exits when its stdin closes (the benchmark died) or on SIGTERM.
 *
 *   node scripts/bench/fake-provider.ts --generate 100000     unpaced `tok1 `, `tok2 `, …
 *   node scripts/bench/fake-provider.ts --chars 190000        38,000 deltas of 5 characters
 *   node scripts/bench/fake-provider.ts --generate 2000 --rate 200   the same, paced at 200 tokens/s
 *
 * Every request whose last user message is `warm up` gets a two-character answer instead; with
 * `--fill`, `fill 10`, `fill 100` and `fill 1000` get as many short paragraphs (each a finished
 * entry of santra's transcript), to grow a transcript quickly.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type FakeTurn,
  lastUserText,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { track } from './processes.ts';

/** What a request answered with the warm-up turn must say. */
export const WARM_UP = 'warm up';
/** The sizes of the `fill N` answers that `--fill` serves. */
export const FILL_SIZES = [1000, 100, 10] as const;
/** Characters per delta of a `--chars` answer. */
export const CHUNK_CHARS = 5;

/** The deltas of a `--chars` answer: distinct 5-character pieces (4 base-36 digits and a space). */
export function answerChunks(chars: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i * CHUNK_CHARS < chars; i++) chunks.push(`${i.toString(36).padStart(4, '0')} `);
  return chunks;
}

/** Starts this file in its own process (`args` as above); resolves once it serves, with its base URL. */
export async function startFakeProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; stop(): void }> {
  const child = track(
    spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], {
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) =>
      reject(new Error(`the fake provider exited with code ${code} before serving`)),
    );
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      generate: { type: 'string' },
      chars: { type: 'string' },
      rate: { type: 'string' },
      fill: { type: 'boolean', default: false },
    },
  });
  const rate = values.rate === undefined ? {} : { tokensPerSecond: Number(values.rate) };
  const answer: FakeTurn =
    values.chars !== undefined
      ? { text: answerChunks(Number(values.chars)), repeat: true }
      : { generate: { tokens: Number(values.generate ?? '0'), ...rate }, repeat: true };
  const fills: FakeTurn[] = values.fill
    ? FILL_SIZES.map((size) => ({
        match: (request) => lastUserText(request) === `fill ${size}`,
        text: Array.from({ length: size }, (_, i) => `Paragraph ${i + 1} of ${size}.\n\n`),
        repeat: true,
      }))
    : [];
  const provider = await startFakeProvider('openai', [
    { match: (request) => lastUserText(request) === WARM_UP, text: 'ok', repeat: true },
    ...fills,
    answer,
  ]);
  process.stdout.write(`${provider.url}\n`);
  const stop = () => void provider.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.stdin.on('end', stop).resume();
}

if (import.meta.main) await main();

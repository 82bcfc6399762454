/**
 * A fake OpenAI provider in its own process, so that generating the stream does not compete with
 * the benchmark's client for one event loop. It prints its base URL on the first stdout line and
 * exits when its stdin closes (the benchmark died) or on SIGTERM.
 *
 *   node scripts/bench/fake-provider.ts --generate 100000     unpaced `tok1 `, `tok2 `, …
 *   node scripts/bench/fake-provider.ts --chars 190000        38,000 deltas of 5 characters
 *
 * Every request whose last user message is `warm up` gets a two-character answer instead.
 */
import { parseArgs } from 'node:util';
import {
  type FakeTurn,
  lastUserText,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';

/** What a request answered with the warm-up turn must say. */
export const WARM_UP = 'warm up';
/** Characters per delta of a `--chars` answer. */
export const CHUNK_CHARS = 5;

/** The deltas of a `--chars` answer: distinct 5-character pieces (4 base-36 digits and a space). */
export function answerChunks(chars: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i * CHUNK_CHARS < chars; i++) chunks.push(`${i.toString(36).padStart(4, '0')} `);
  return chunks;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { generate: { type: 'string' }, chars: { type: 'string' } } });
  const answer: FakeTurn =
    values.chars !== undefined
      ? { text: answerChunks(Number(values.chars)), repeat: true }
      : { generate: { tokens: Number(values.generate ?? '0') }, repeat: true };
  const provider = await startFakeProvider('openai', [
    { match: (request) => lastUserText(request) === WARM_UP, text: 'ok', repeat: true },
    answer,
  ]);
  process.stdout.write(`${provider.url}\n`);
  const stop = () => void provider.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.stdin.on('end', stop).resume();
}

if (import.meta.main) await main();

/**
 * Runs one fake provider from the command line, for benchmarks and manual runs:
 *
 *   node conformance-tests/src/fake-providers/serve.ts --api openai --generate 100000 --repeat
 *
 * The first line of stdout is the base URL to give the SDK; the fake serves until killed.
 */
import { parseArgs } from 'node:util';
import { startFakeProvider } from './server.ts';
import type { FakeTurn } from './types.ts';

const USAGE = `Usage: serve.ts --api anthropic|openai|openai-responses [--text TEXT] [--generate N] [--tokens-per-second N]
                [--first-byte-delay-ms N] [--repeat]

Starts a fake model provider on 127.0.0.1 and prints its base URL on the first line of stdout.
  --text TEXT               answer with this text (default "Hello from the fake provider.")
  --generate N              stream N small text deltas after the text
  --tokens-per-second N     pace the generated deltas (default: as fast as possible)
  --first-byte-delay-ms N   wait before the response headers
  --repeat                  serve the turn to every request (default: once, then HTTP 500)
`;

function fail(message: string): never {
  process.stderr.write(`serve.ts: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function count(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) fail(`--${name} must be a non-negative number, got '${value}'`);
  return number;
}

let parsed;
try {
  parsed = parseArgs({
    options: {
      api: { type: 'string' },
      text: { type: 'string' },
      generate: { type: 'string' },
      'tokens-per-second': { type: 'string' },
      'first-byte-delay-ms': { type: 'string' },
      repeat: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values;
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
if (parsed.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const APIS = ['anthropic', 'openai', 'openai-responses'] as const;
const api = APIS.find((candidate) => candidate === parsed.api);
if (api === undefined) {
  fail(
    `--api must be 'anthropic', 'openai' or 'openai-responses', got ${parsed.api === undefined ? 'nothing' : `'${parsed.api}'`}`,
  );
}

const tokens = count('generate', parsed.generate);
const tokensPerSecond = count('tokens-per-second', parsed['tokens-per-second']);
const firstByteDelayMs = count('first-byte-delay-ms', parsed['first-byte-delay-ms']);
const turn: FakeTurn = {
  text: parsed.text ?? (tokens === undefined ? 'Hello from the fake provider.' : undefined),
  repeat: parsed.repeat,
  ...(tokens === undefined
    ? {}
    : { generate: { tokens, ...(tokensPerSecond === undefined ? {} : { tokensPerSecond }) } }),
  ...(firstByteDelayMs === undefined ? {} : { firstByteDelayMs }),
};

const provider = await startFakeProvider(api, [turn]);
process.stdout.write(`${provider.url}\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void provider.close().then(() => process.exit(0)));
}

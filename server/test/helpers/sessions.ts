/**
 * Servers for the saved-session tests: each a fresh process of the built server, with a home that
 * can outlive it (so the next process finds what the last one saved), stopped and cleaned up after
 * the test file. A session's saved records, read back from its file.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import type { FakeProvider } from '../../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir } from '../../../scripts/temp-dirs.ts';
import { parseJournal } from '../../src/sessions/journal.ts';
import type { SessionRecord } from '../../src/sessions/records.ts';
import { CANARY_KEY, FAST_RESILIENCE } from './run.ts';
import { type Json, WireClient } from './wire.ts';

export interface SessionServerOptions {
  /** HOME; the config directory (SANTRA_HOME) is its `santra/`. */
  home: string;
  workspace: string;
  /** The fake Anthropic provider to use (its key is the canary), or your own provider variables in `env`. */
  anthropicUrl?: string;
  env?: NodeJS.ProcessEnv;
  capabilities?: Json;
  args?: string[];
  /** What every prompt's params start from (an agent, a mode). */
  promptDefaults?: Json;
  /** Remove `home` when the file's tests end (for a home only this server uses). */
  ownsHome?: boolean;
}

export interface SessionServer {
  client: WireClient;
  /** A request and its whole response. */
  call: (method: string, params?: unknown) => Promise<Json>;
  /** The result of a request that must succeed. */
  ok: (method: string, params?: unknown) => Promise<Json>;
  /** A prompt that must be answered with a result, and the phases of its run. */
  prompt: (params: Json) => Promise<{ result: Json; phases: Json[] }>;
  /** shutdown, exit, and the process gone. */
  stop: () => Promise<void>;
}

/**
 * Starts servers for one test file; after its tests, each is checked never to have shown the
 * canary key (on stdout or stderr), then killed, and owned homes are removed.
 */
export function sessionServers(): {
  start(options: SessionServerOptions): Promise<SessionServer>;
  /** Runs `step` after the file's tests, before the servers are stopped (LIFO). */
  later(step: () => Promise<void>): void;
} {
  const cleanup: Array<() => Promise<void>> = [];
  after(async () => {
    for (const step of cleanup.reverse()) await step();
  });
  let nextId = 1;
  return {
    later: (step) => void cleanup.push(step),
    async start(options) {
      const client = new WireClient(options.args ?? [], {
        HOME: options.home,
        SANTRA_HOME: join(options.home, 'santra'),
        ...(options.anthropicUrl === undefined
          ? {}
          : {
              ANTHROPIC_API_KEY: CANARY_KEY,
              ANTHROPIC_BASE_URL: options.anthropicUrl,
              SANTRA_MODEL: 'anthropic/claude-sonnet-4-5',
            }),
        ...FAST_RESILIENCE,
        ...options.env,
      });
      cleanup.push(async () => {
        assert.ok(!client.stdout.includes(CANARY_KEY), 'the key appeared in protocol output');
        assert.ok(!client.stderr.includes(CANARY_KEY), 'the key appeared in the server log');
        client.child.kill('SIGKILL');
        await client.exited;
        if (options.ownsHome === true) await removeTempDir(options.home);
      });
      const init = await client.initialize(options.workspace, nextId++, options.capabilities ?? {});
      assert.equal(init.error, undefined, JSON.stringify(init.error));
      const call = async (method: string, params?: unknown): Promise<Json> => {
        const id = nextId++;
        client.request(id, method, params);
        return client.response(id);
      };
      return {
        client,
        call,
        async ok(method, params) {
          const response = await call(method, params);
          assert.equal(response.error, undefined, `${method}: ${JSON.stringify(response.error)}`);
          return response.result as Json;
        },
        async prompt(params) {
          const response = await call('prompt', { ...options.promptDefaults, ...params });
          assert.equal(response.error, undefined, JSON.stringify(response.error));
          const phases = client.messages.filter((m) => m.method === 'phase').map((m) => m.params as Json);
          client.messages.splice(0);
          return { result: response.result as Json, phases };
        },
        async stop() {
          await call('shutdown');
          client.notify('exit');
          await client.exited;
        },
      };
    },
  };
}

/** Every session file under a sessions directory (`<config dir>/sessions`), by file name. */
export function sessionFiles(sessionsDir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const project of readdirSync(sessionsDir))
    for (const name of readdirSync(join(sessionsDir, project)))
      if (name.endsWith('.jsonl')) files.set(name, join(sessionsDir, project, name));
  return files;
}

/** The saved records of a session; the file must load without a warning. */
export function sessionRecords(sessionsDir: string, sessionId: string): SessionRecord[] {
  const path = sessionFiles(sessionsDir).get(`${sessionId}.jsonl`);
  assert.ok(path !== undefined, `no file for ${sessionId}`);
  const parsed = parseJournal(readFileSync(path, 'utf8'), path);
  assert.deepEqual(parsed.warnings, []);
  return parsed.records;
}

/**
 * The user and assistant texts the fake provider received in its last request, one per message,
 * without the notes on where and when the user writes (agent/system-prompt.ts).
 */
export function sentTexts(fake: FakeProvider): string[] {
  const body = fake.requests.at(-1)?.body as { messages: Array<{ content: unknown }> };
  return body.messages.map((m) =>
    typeof m.content === 'string'
      ? m.content.replace(ENVIRONMENT_NOTE, '')
      : (m.content as Array<{ type: string; text?: string }>)
          .filter((b) => b.type === 'text' && !ENVIRONMENT_NOTE.test(b.text ?? ''))
          .map((b) => b.text)
          .join(''),
  );
}

/** The note on today's date and the user's directory that may end a prompt's message. */
const ENVIRONMENT_NOTE = /(\n\n)?<environment>\n[^]*?\n<\/environment>$/;

/**
 * What a newcomer sees when something is wrong: which provider or URL, why, and what to do —
 * and never silence while Santra waits or retries.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { startFakeProvider } from '../../conformance-tests/src/fake-providers/index.ts';
import { connectionFailure } from '../src/providers/failures.ts';
import { runSantra, santraEnv, suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const errorsOf = (phases: Json[]) => phases.filter((p) => p.type === 'error');
const warnings = (phases: Json[]) => phases.filter((p) => p.type === 'status' && p.level === 'warning');

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('first contact', () => {
  test('an unknown provider is named, with the known ones; a bare id no provider claims says how to name it', async () => {
    const h = await start('anthropic', []);
    const unknown = await h.prompt({ text: 'hi', model: 'nosuchprov/foo' });
    assert.match(
      String(errorsOf(unknown.phases)[0]?.message),
      /^Unknown provider "nosuchprov" in "nosuchprov\/foo"\. Known providers: anthropic, openai, .*groq/,
    );
    const bare = await h.prompt({ text: 'hi', model: 'mystery-model' });
    assert.match(
      String(errorsOf(bare.phases)[0]?.message),
      /cannot tell which provider serves "mystery-model"\. Name it as provider\/model/,
    );
    assert.equal(h.fake.requests.length, 0);
  });

  test('a key with a character HTTP cannot carry is refused at once, naming the variable, never retried', async () => {
    const h = await start('anthropic', [{ text: 'never' }], { ANTHROPIC_API_KEY: 'sk-ant-…' });
    const { response, phases } = await h.prompt({ text: 'hi' });
    assert.equal((response.result as Json).status, 'error');
    const message = String(errorsOf(phases)[0]?.message);
    assert.match(
      message,
      /The API key for Anthropic-compatible server at 127\.0\.0\.1:\d+ \(the environment variable ANTHROPIC_API_KEY\) contains the character U\+2026 at position 8/,
    );
    assert.ok(!message.includes('sk-ant'), 'the key itself is not shown');
    assert.equal(h.fake.requests.length, 0, 'no request, no retries');
  });

  test('a refused connection names the URL and the cause, and says what to check', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const h = await start('openai', [], {
      OPENAI_BASE_URL: url,
      SANTRA_MODEL: 'qwen2.5-coder:7b',
      SANTRA_RETRY_BASE_MS: '1',
    });
    const { phases } = await h.prompt({ text: 'hi' });
    const message = String(errorsOf(phases)[0]?.message);
    assert.ok(message.includes(url), message);
    assert.match(message, /connection was refused .* Is the server running, and is the base URL right\?/);
    const retries = warnings(phases).filter((p) => /Retrying/.test(String(p.text)));
    assert.equal(retries.length, 3, 'every retry is announced');
    assert.match(
      String(retries[0]?.text),
      /Retrying in \d+ s \(attempt 2 of 4; giving up within \d+ s if it keeps failing\)/,
    );
  });

  test('connection causes in words: DNS, TLS, plain HTTP behind https, reset', () => {
    const wrapped = (code: string, message: string) => ({
      message: 'Connection error.',
      cause: { message: 'fetch failed', cause: { code, message } },
    });
    assert.match(
      connectionFailure(wrapped('ENOTFOUND', 'getaddrinfo ENOTFOUND box.lan'), 'http://box.lan/v1'),
      /host name could not be resolved \(DNS\)/,
    );
    assert.match(
      connectionFailure(wrapped('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'), 'https://box/v1'),
      /TLS certificate was not accepted/,
    );
    assert.match(
      connectionFailure(wrapped('EPROTO', 'ssl3_get_record:wrong version number'), 'https://box/v1'),
      /Try http:\/\/ instead of https:\/\//,
    );
    assert.match(
      connectionFailure(wrapped('ECONNRESET', 'read ECONNRESET'), 'http://box/v1'),
      /closed by the other side/,
    );
    assert.match(connectionFailure(wrapped('ETIMEDOUT', 'connect ETIMEDOUT'), 'http://box/v1'), /timed out/);
  });

  test('a provider slow to answer is announced while Santra waits', async () => {
    const h = await start('anthropic', [{ text: 'late but fine', firstByteDelayMs: 1500 }], {
      SANTRA_WAITING_NOTICE_MS: '300',
      SANTRA_TIMEOUT_FIRST_MS: '10000',
    });
    const { response, phases } = await h.prompt({ text: 'hi' });
    assert.equal((response.result as Json).output, 'late but fine');
    assert.match(
      String(warnings(phases)[0]?.text),
      /^Anthropic-compatible server at 127\.0\.0\.1:\d+ has not answered yet \(0 s\); waiting up to 10 s for a first response, then retrying\.$/,
    );
  });

  test('santra -p shows retries on stderr without --verbose, and the models command for an unknown model', async () => {
    const fake = await startFakeProvider('anthropic', [
      { fault: { kind: 'http_error', status: 529 } },
      { text: 'answered' },
    ]);
    const home = mkdtempSync(join(tmpdir(), 'santra-home-'));
    dirs.push(home);
    const env = { ...santraEnv(home, fake.url), SANTRA_RETRY_BASE_MS: '1' };
    const run = (args: string[]) => runSantra(args, { cwd: home, env });
    try {
      const retried = await run(['-p', 'hi']);
      assert.equal(retried.code, 0, retried.stderr);
      assert.equal(retried.stdout, 'answered\n');
      assert.match(
        retried.stderr,
        /^! Retrying in \d+ s \(attempt 2 of 4; giving up within .*\) — .*overloaded \(529\)/m,
      );
      const unknown = await run(['-p', 'hi', '--model', 'nosuchprov/foo']);
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr, /Unknown provider "nosuchprov"/);
      assert.match(unknown.stderr, /`santra models` lists the models you can use/);
    } finally {
      await fake.close();
    }
  });

  test('santra models and santra agents list what --model and --agent accept, as text or JSON', async () => {
    const home = mkdtempSync(join(tmpdir(), 'santra-home-'));
    dirs.push(home);
    mkdirSync(join(home, 'repo/.git'), { recursive: true });
    mkdirSync(join(home, 'repo/.agents'));
    mkdirSync(join(home, 'repo/src'));
    writeFileSync(
      join(home, 'repo/.agents/sec.json'),
      JSON.stringify({
        id: 'security_reviewer',
        name: 'Sec',
        description: 'Reviews security.',
        systemPrompt: 'x',
        toolNames: ['read_file'],
      }),
    );
    // From a subdirectory: the project (the directory with .git above) is the workspace.
    const run = (args: string[]) => runSantra(args, { cwd: join(home, 'repo/src'), env: santraEnv(home) });
    const models = await run(['models', '--json']);
    assert.equal(models.code, 0);
    const list = JSON.parse(models.stdout) as { current: string; models: Array<{ ref: string }> };
    assert.match(list.current, /^anthropic\//);
    assert.ok(list.models.some((model) => model.ref.startsWith('openai/')));
    const table = await run(['models']);
    assert.match(table.stdout, /^Current: anthropic\/.*\n\nanthropic\n/);
    const agents = await run(['agents']);
    assert.equal(agents.code, 0);
    assert.match(agents.stdout, /^orchestrator +Plans/m);
    assert.match(agents.stdout, /^security_reviewer +Reviews security\. +\(\.agents\/sec\.json\)$/m);
  });

  test('prompt cwd: the agents are told where the user is and read the instructions on the way; outside is refused', async () => {
    const h = await start('anthropic', [{ text: 'ok' }]);
    mkdirSync(join(h.workspace, 'pkg/api'), { recursive: true });
    writeFileSync(join(h.workspace, 'AGENTS.md'), 'ROOT RULE: use pnpm.\n');
    writeFileSync(join(h.workspace, 'pkg/AGENTS.md'), 'PKG RULE: tabs.\n');
    const { response } = await h.prompt({ text: 'hi', cwd: 'pkg/api' });
    assert.equal((response.result as Json).status, 'completed');
    const system = (h.fake.requests[0]?.body.system as Array<{ text: string }>).map((b) => b.text).join('\n');
    // Where the user is goes with the prompt: the system prompt heads the cached prefix and stays the same.
    const prompt = (h.fake.requests[0]?.body.messages as Array<{ content: Array<{ text?: string }> }>).at(-1);
    assert.match(
      String(prompt?.content.at(-1)?.text),
      /^<environment>\nToday is \d{4}-\d\d-\d\d\. The user is working in .*pkg\/api: a relative path they mention is relative to that directory/,
    );
    assert.doesNotMatch(system, /pkg\/api|Today is|PKG RULE/);
    // The root's instructions hold wherever the user works; the directories' go with the prompt.
    assert.match(system, /ROOT RULE: use pnpm\./);
    assert.match(String(prompt?.content.at(-1)?.text), /## pkg\/AGENTS\.md\n\nPKG RULE: tabs\.\n\n/);
    for (const cwd of ['..', '/etc', 'missing']) {
      const id = h.nextId();
      h.client.request(id, 'prompt', { text: 'hi', cwd, agent: 'tester' });
      const refused = await h.client.response(id);
      assert.equal((refused.error as Json | undefined)?.code, -32602, JSON.stringify(refused));
      assert.match(String((refused.error as Json).message), /params\.cwd: /);
    }
  });

  test('a model Santra does not list is sent as is, with a warning; an unknown agent is answered with the list', async () => {
    const h = await start('anthropic', [{ text: 'fine' }]);
    const { phases } = await h.prompt({ text: 'hi', model: 'anthropic/claude-next-9' });
    assert.match(
      String(warnings(phases)[0]?.text),
      /^anthropic\/claude-next-9 is not in Santra's model list: it is sent to Anthropic-compatible server at 127\.0\.0\.1:\d+ as is/,
    );
    const id = h.nextId();
    h.client.request(id, 'prompt', { text: 'hi', agent: 'nobody' });
    const refused = await h.client.response(id);
    assert.match(
      String((refused.error as Json).message),
      /there is no agent "nobody"\. The agents of this workspace: orchestrator, .*tester/,
    );
  });

  test('a broken custom agent file is a warning every client shows, naming the file and the field', async () => {
    const h = await start('anthropic', [{ text: 'ok' }]);
    writeFileSync(
      join(h.workspace, '.agents/broken.json'),
      JSON.stringify({ id: 'broken', name: 'B', description: 'd', toolNames: [] }),
    );
    const { phases } = await h.prompt({ text: 'hi' });
    assert.ok(
      warnings(phases).some((p) => /^Skipped \.agents\/broken\.json \(systemPrompt\): /.test(String(p.text))),
      JSON.stringify(warnings(phases)),
    );
  });

  test('OPENAI_BASE_URL without a model: Santra asks for the model that server serves, not a preset default', async () => {
    const h = await start('openai', [{ text: 'never' }], { SANTRA_MODEL: '', OPENAI_API_KEY: '' });
    const { phases } = await h.prompt({ text: 'hi' });
    assert.match(
      String(errorsOf(phases)[0]?.message),
      /^The openai provider is set to http:\/\/127\.0\.0\.1:\d+\/v1, and Santra cannot know which model that server serves\. Name it: SANTRA_MODEL=<model>/,
    );
    assert.equal(h.fake.requests.length, 0);
  });
});

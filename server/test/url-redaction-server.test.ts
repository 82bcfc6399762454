/**
 * A base URL that carries credentials (`OPENAI_BASE_URL=http://user:secret@host/v1?api_key=…`)
 * never shows them: not in the error phase of a prompt that cannot reach it, not in the saved
 * session, not in the log. The built server against a port where nothing listens.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { sessionFiles } from './helpers/sessions.ts';
import { suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const homes: string[] = [];
after(async () => {
  await Promise.all(homes.map((home) => removeTempDir(home)));
});

/** A port of 127.0.0.1 where nothing listens: one the system just gave out, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}

for (const [name, url] of [
  [
    'a user and password, and a key in the query',
    'http://user:secret-pw@127.0.0.1:PORT/v1?api_key=secret-key',
  ],
  ['a key in the query', 'http://127.0.0.1:PORT/v1?api_key=secret-key&token=secret-token'],
] as const) {
  test(`a base URL with ${name}: the error phase, the session file and the log never show it`, async () => {
    const port = await closedPort();
    const santraHome = tempDir('santra-url-home-');
    homes.push(santraHome);
    const h = await start(
      'openai',
      [],
      { OPENAI_BASE_URL: url.replace('PORT', String(port)), SANTRA_HOME: santraHome },
      undefined,
      { generalist: false },
    );
    const { response, phases } = await h.prompt({ text: 'hello', mode: 'simple_chat' });
    assert.equal((response.result as Json | undefined)?.status, 'error', JSON.stringify(response));
    const error = phases.find((phase) => phase.type === 'error');
    assert.ok(error !== undefined, 'an error phase');
    const message = String(error.message);
    // Still says where it tried to go.
    assert.match(message, new RegExp(`could not connect to http://[^ ]*127\\.0\\.0\\.1:${port}/v1`));
    assert.ok(!message.includes('secret'), message);
    if (url.includes('@')) {
      // fetch refuses such a URL before it connects: said once, not retried.
      assert.match(message, /cannot carry a user name or password/);
      assert.equal(error.retryable, false);
      assert.ok(!phases.some((phase) => /Retrying/.test(String(phase.text))), 'not retried');
    }

    const files = [...sessionFiles(join(santraHome, 'sessions')).values()];
    assert.equal(files.length, 1, 'the session was saved');
    const saved = readFileSync(files[0] ?? '', 'utf8');
    assert.ok(saved.includes('could not connect to'), 'the error is in the session file');
    assert.ok(!saved.includes('secret'), saved);
    assert.ok(!h.client.stdout.includes('secret'), 'nothing the server sent shows it');
    assert.ok(!h.client.stderr.includes('secret'), h.client.stderr);
  });
}

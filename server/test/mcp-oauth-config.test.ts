/**
 * The parts of MCP OAuth that need no server: the `oauth` field of a remote server's definition
 * (a bad port is refused with what to write instead; `${VAR}` in the client secret is expanded
 * and handed to the redactor), and where a sign-in is kept (one file per server URL, 0600 in a
 * 0700 directory, a damaged or foreign file read as no sign-in).
 */
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { McpServerSchema } from '../src/config/mcp-schema.ts';
import { expandDefinition } from '../src/mcp/definitions.ts';
import { readSignIn, signInDir, signInFile, writeSignIn } from '../src/mcp/oauth-store.ts';

const home = tempDir('santra-oauth-store-');
after(() => removeTempDir(home));
const env = { SANTRA_HOME: home };

describe('the oauth field', () => {
  test('takes a client id, secret, scope and callback port; a bad port says what to write', () => {
    const ok = McpServerSchema.safeParse({
      type: 'http',
      url: 'https://mcp.example.com/mcp',
      oauth: { clientId: 'santra', clientSecret: '${SECRET}', scope: 'read', callbackPort: 8765 },
    });
    assert.ok(ok.success, JSON.stringify(ok.error?.issues));
    for (const callbackPort of [80, 70_000, 'x', 12.5]) {
      const bad = McpServerSchema.safeParse({ type: 'http', url: 'https://m/mcp', oauth: { callbackPort } });
      assert.ok(!bad.success, String(callbackPort));
      assert.match(JSON.stringify(bad.error.issues), /port/, String(callbackPort));
    }
  });

  test('the client secret is expanded from the environment and redacted', () => {
    const expanded = expandDefinition(
      {
        type: 'http',
        url: 'https://mcp.example.com/mcp',
        oauth: { clientId: 'santra', clientSecret: '${SECRET}' },
      },
      { SECRET: 'very-secret-value' },
    );
    assert.ok('url' in expanded.definition);
    assert.equal(expanded.definition.oauth?.clientSecret, 'very-secret-value');
    assert.deepEqual(expanded.secrets, ['very-secret-value']);
  });
});

describe('where a sign-in is kept', () => {
  test('one file per server URL, 0600 in a 0700 directory', async () => {
    const a = signInFile(env, 'https://mcp.example.com/mcp');
    assert.equal(a, signInFile(env, 'https://mcp.example.com/mcp'));
    assert.notEqual(a, signInFile(env, 'https://mcp.example.com/other'));
    assert.match(a, /mcp-oauth\/mcp\.example\.com-[0-9a-f]{16}\.json$/);
    await writeSignIn(a, signInDir(env), {
      serverUrl: 'https://mcp.example.com/mcp',
      tokens: { access_token: 'at', token_type: 'Bearer' },
    });
    assert.equal(statSync(signInDir(env)).mode & 0o777, 0o700);
    assert.equal(statSync(a).mode & 0o777, 0o600);
    assert.equal((await readSignIn(a, 'https://mcp.example.com/mcp')).tokens?.access_token, 'at');
  });

  test('a file of another URL, or a damaged one, is no sign-in', async () => {
    const file = signInFile(env, 'https://one.example/mcp');
    await writeSignIn(file, signInDir(env), {
      serverUrl: 'https://two.example/mcp',
      tokens: { access_token: 'theirs', token_type: 'Bearer' },
    });
    assert.deepEqual(await readSignIn(file, 'https://one.example/mcp'), {
      serverUrl: 'https://one.example/mcp',
    });
    writeFileSync(join(signInDir(env), 'broken.json'), '{"serverUrl": ');
    assert.deepEqual(await readSignIn(join(signInDir(env), 'broken.json'), 'https://x/mcp'), {
      serverUrl: 'https://x/mcp',
    });
  });
});

/**
 * redactUrls: every form in which a URL carries a credential — a user, a password, a secret
 * query or fragment value — is masked, in a bare URL and inside a longer message, and everything
 * else is left as it was written.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { loadConfig, redactConfig } from '../src/config/config.ts';
import { classifyFailure, connectionFailure } from '../src/providers/failures.ts';
import type { ProviderEndpoint } from '../src/providers/types.ts';
import { redactUrls } from '../src/support/url-redaction.ts';

describe('redactUrls', () => {
  const cases: Array<[string, string, string]> = [
    ['user and password', 'http://user:secret@host:8080/v1', 'http://***@host:8080/v1'],
    ['a user alone (a token as the user)', 'https://ghp_secret@github.com/o/r', 'https://***@github.com/o/r'],
    ['a password with an unencoded @', 'http://u:se@cret@host/v1', 'http://***@host/v1'],
    ['percent-encoded credentials', 'http://us%40er:p%3Asecret@host/', 'http://***@host/'],
    ['no path after the host', 'http://user:secret@host', 'http://***@host'],
    ['api_key in the query', 'http://host/v1?api_key=secret', 'http://host/v1?api_key=***'],
    [
      'the names that look secret, in any case',
      'http://h/?key=secret&API_KEY=secret&apiKey=secret&token=secret&access_token=secret&Secret=secret&password=secret&sig=secret&Signature=secret&auth=secret&code=secret',
      'http://h/?key=***&API_KEY=***&apiKey=***&token=***&access_token=***&Secret=***&password=***&sig=***&Signature=***&auth=***&code=***',
    ],
    [
      'vendor spellings',
      'https://b.s3.amazonaws.com/k?X-Amz-Credential=secret&X-Amz-Signature=secret&x-api-key=secret&client_secret=secret',
      'https://b.s3.amazonaws.com/k?X-Amz-Credential=***&X-Amz-Signature=***&x-api-key=***&client_secret=***',
    ],
    [
      'harmless parameters stay readable',
      'https://res.openai.azure.com/openai/deployments/gpt?api-version=2024-10-21&api_key=secret',
      'https://res.openai.azure.com/openai/deployments/gpt?api-version=2024-10-21&api_key=***',
    ],
    ['a percent-encoded name', 'http://h/?api%5Fkey=secret', 'http://h/?api%5Fkey=***'],
    ['a fragment', 'http://h/cb#access_token=secret&state=x', 'http://h/cb#access_token=***&state=x'],
    ['userinfo and query together', 'http://u:secret@h/v1?token=secret#x', 'http://***@h/v1?token=***#x'],
    ['any scheme', 'redis://:secret@cache:6379/0', 'redis://***@cache:6379/0'],
    ['an @ in the path is not userinfo', 'http://host/v1/@me?x=1', 'http://host/v1/@me?x=1'],
    ['empty and valueless parameters', 'http://h/?token=&key&a=b', 'http://h/?token=&key&a=b'],
    ['parameters separated by ;', 'http://h/v1?a=1;token=secret', 'http://h/v1?a=1;token=***'],
    ['a password holding an unencoded # or ?', 'http://u:p#s?t@host/v1', 'http://***@host/v1'],
    ['no path, an @ in the query: the host goes too (safe side)', 'http://h?to=a@b', 'http://***@b'],
  ];
  for (const [name, input, expected] of cases) {
    test(name, () => assert.equal(redactUrls(input), expected));
  }

  test('URLs inside a longer message, with the punctuation around them kept', () => {
    const message =
      'could not connect to http://user:secret@127.0.0.1:9/v1?api_key=secret (Connection error. · Request cannot be constructed from a URL that includes credentials: http://user:secret@127.0.0.1:9/v1/chat/completions?api_key=secret). Check "https://x:secret@h/".';
    assert.equal(
      redactUrls(message),
      'could not connect to http://***@127.0.0.1:9/v1?api_key=*** (Connection error. · Request cannot be constructed from a URL that includes credentials: http://***@127.0.0.1:9/v1/chat/completions?api_key=***). Check "https://***@h/".',
    );
    assert.equal(
      redactUrls('see (http://h/wiki/A_(b)?token=secret).'),
      'see (http://h/wiki/A_(b)?token=***).',
    );
  });

  test('never throws, and leaves text without a URL alone', () => {
    for (const text of [
      '',
      'no url here',
      'user:secret@host',
      'http://',
      'http://[::1',
      'http://user:secret@[bad',
      'http://h/?%E0%A4%A=secret',
      '::://@@@??##',
    ]) {
      assert.doesNotThrow(() => redactUrls(text));
      assert.ok(!redactUrls(text).includes('secret@['), text);
    }
    assert.equal(redactUrls('no url here'), 'no url here');
    assert.equal(redactUrls('user:secret@host'), 'user:secret@host');
    assert.equal(redactUrls('http://user:secret@[bad'), 'http://***@[bad');
    assert.equal(redactUrls('http://127.0.0.1:11434/v1'), 'http://127.0.0.1:11434/v1');
  });

  test('a long run of dotted words is scanned in linear time', () => {
    const text = `${'a.'.repeat(100_000)} http://u:secret@h/`;
    const started = performance.now();
    assert.ok(redactUrls(text).endsWith(' http://***@h/'));
    assert.ok(performance.now() - started < 2_000, 'not quadratic (unbounded, this took 20 s)');
  });

  test('a URL not written in the usual form is still redacted', () => {
    assert.equal(redactUrls('HTTP://User:Secret@Host/'), 'HTTP://***@Host/');
    assert.equal(redactUrls('http://u:secret@h\\path?token=secret'), 'http://***@h\\path?token=***');
  });
});

describe('where a base URL is shown', () => {
  const endpoint: ProviderEndpoint = {
    id: 'openai',
    name: 'OpenAI-compatible server at 127.0.0.1:9',
    api: 'openai',
    baseUrl: 'http://user:secret@127.0.0.1:9/v1?api_key=secret',
    needsKey: false,
  };
  const refused = Object.assign(new Error('Connection error.'), {
    name: 'APIConnectionError',
    cause: Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
    }),
  });

  test('provider failures: a refused connection, a 404, a URL quoted by the SDK', () => {
    const network = classifyFailure(endpoint, 'gpt-4o', refused, false);
    assert.equal(
      network.message,
      'OpenAI-compatible server at 127.0.0.1:9: could not connect to http://***@127.0.0.1:9/v1?api_key=***: the connection was refused (nothing listens at 127.0.0.1:9). Is the server running, and is the base URL right?',
    );
    const notFound = classifyFailure(endpoint, 'gpt-4o', { status: 404, message: '404 Not Found' }, false);
    assert.match(
      notFound.message,
      /Check the model id .* and http:\/\/\*\*\*@127\.0\.0\.1:9\/v1\?api_key=\*\*\*\.$/,
    );
    const quoted = classifyFailure(
      endpoint,
      'gpt-4o',
      {
        status: 400,
        error: { error: { message: 'bad request to http://user:secret@127.0.0.1:9/v1?api_key=secret' } },
      },
      false,
    );
    assert.ok(!quoted.message.includes('secret'), quoted.message);
    assert.ok(!connectionFailure(refused, endpoint.baseUrl).includes('secret'));
  });

  test('fetch refusing a URL with credentials says so, without them', () => {
    const credentials = Object.assign(new Error('Connection error.'), {
      name: 'APIConnectionError',
      cause: new TypeError(
        'Request cannot be constructed from a URL that includes credentials: http://user:secret@127.0.0.1:9/v1/chat/completions?api_key=secret',
      ),
    });
    const failure = classifyFailure(endpoint, 'gpt-4o', credentials, false);
    assert.match(failure.message, /a base URL cannot carry a user name or password/);
    assert.ok(!failure.message.includes('secret'), failure.message);
  });

  test('the endpoint name and redactConfig', async () => {
    const dir = tempDir('santra-url-config-');
    const config = await loadConfig({
      HOME: dir,
      SANTRA_HOME: dir,
      OPENAI_BASE_URL: 'http://user:secret@127.0.0.1:9/v1?api_key=secret',
    });
    assert.equal(config.providers.openai?.name, 'OpenAI-compatible server at 127.0.0.1:9');
    // The request itself still goes to the URL as given.
    assert.equal(config.providers.openai?.baseUrl, 'http://user:secret@127.0.0.1:9/v1?api_key=secret');
    const shown = JSON.stringify(redactConfig(config));
    assert.ok(!shown.includes('secret'), shown);
    assert.ok(shown.includes('http://***@127.0.0.1:9/v1?api_key=***'));
  });
});

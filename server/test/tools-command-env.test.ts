import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { removedVariables, scrubEnvironment } from '../src/tools/commands/env.ts';
import { runCommandTool } from '../src/tools/run-command.ts';
import { scratchDir } from './helpers/gated-context.ts';
import { tempWorkspace, testContext } from './helpers/tool-context.ts';

const CANARY = 'sk-canary-7f3a9c1e-do-not-leak';

const SOURCE: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/someone',
  LANG: 'en_US.UTF-8',
  TERM: 'xterm-256color',
  SHELL: '/bin/bash',
  USER: 'someone',
  SSH_AUTH_SOCK: '/tmp/agent.sock',
  ANTHROPIC_API_KEY: CANARY,
  OPENAI_API_KEY: CANARY,
  GROQ_API_KEY: CANARY,
  AWS_SECRET_ACCESS_KEY: CANARY,
  AWS_ACCESS_KEY_ID: CANARY,
  GITHUB_TOKEN: CANARY,
  npm_config__authToken: CANARY,
  PGPASSWORD: CANARY,
  DB_PASSWD: CANARY,
  GOOGLE_APPLICATION_CREDENTIALS: '/secret/creds.json',
  my_client_secret: CANARY,
  SANTRA_MODEL: 'anthropic/claude',
  SANTRA_HOME: '/home/someone/.santra',
};

describe('scrubEnvironment', () => {
  test('removes provider keys, secret-looking names and SANTRA_* settings, keeps the rest', () => {
    const scrubbed = scrubEnvironment(SOURCE);
    assert.deepEqual(Object.keys(scrubbed).sort(), [
      'HOME',
      'LANG',
      'PATH',
      'SHELL',
      'SSH_AUTH_SOCK',
      'TERM',
      'USER',
    ]);
    assert.equal(Object.values(scrubbed).includes(CANARY), false);
    assert.equal(scrubbed.PATH, SOURCE.PATH);
  });

  test('matches the secret words case-insensitively', () => {
    const scrubbed = scrubEnvironment({
      a_Token_b: 'x',
      ApiKey: 'x',
      Secret: 'x',
      credentialsFile: 'x',
      KEEP: 'x',
    });
    assert.deepEqual(Object.keys(scrubbed), ['KEEP']);
  });

  test('keeps the names in allow, exactly', () => {
    const scrubbed = scrubEnvironment(SOURCE, { allow: ['GITHUB_TOKEN', 'santra_model'] });
    assert.equal(scrubbed.GITHUB_TOKEN, CANARY);
    assert.equal(scrubbed.SANTRA_MODEL, undefined);
    assert.equal(scrubbed.OPENAI_API_KEY, undefined);
  });

  test('removes the extra names in remove (a custom provider key variable)', () => {
    const scrubbed = scrubEnvironment({ PATH: '/bin', MYBOX_AUTH: CANARY }, { remove: ['MYBOX_AUTH'] });
    assert.deepEqual(scrubbed, { PATH: '/bin' });
  });

  test('does not change its input and drops undefined values', () => {
    const source: NodeJS.ProcessEnv = { ...SOURCE, EMPTY: undefined };
    scrubEnvironment(source);
    assert.equal(source.ANTHROPIC_API_KEY, CANARY);
    assert.equal('EMPTY' in scrubEnvironment(source), false);
  });

  test('removedVariables lists the removed names, sorted, for a debug log', () => {
    assert.deepEqual(
      removedVariables({ PATH: '/bin', OPENAI_API_KEY: 'x', GH_TOKEN: 'y', SANTRA_HOME: 'z' }),
      ['GH_TOKEN', 'OPENAI_API_KEY', 'SANTRA_HOME'],
    );
    assert.deepEqual(removedVariables({ GH_TOKEN: 'y' }, { allow: ['GH_TOKEN'] }), []);
  });
});

describe('scrubEnvironment by value and by name part', () => {
  const leaking: NodeJS.ProcessEnv = {
    SENTRY_DSN: `https://${CANARY}@o1.ingest.sentry.io/42`,
    NPM_CONFIG__AUTH: CANARY,
    npm_config__auth: CANARY,
    BASIC_AUTH: CANARY,
    HTTP_AUTHORIZATION: `Bearer ${CANARY}`,
    DB_PASS: CANARY,
    DB_PW: CANARY,
    Some_Jwt: CANARY,
    CI_NOTE: 'ghp_0123456789abcdefghijABCDEFGHIJ012345',
    UPLOADER: 'sk-ant-api03-0123456789abcdefghijklmnop',
    AWS_ID: 'AKIAIOSFODNN7EXAMPLE',
    SLACK: 'xoxb-1234567890-abcdefghij',
    DEPLOY: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----',
  };
  // A password in no known format: only the URL rule can catch it. The URL stays, without it.
  const PASSWORD = 'plain7f3a9c1eword';
  const withCredentials: NodeJS.ProcessEnv = {
    DATABASE_URL: `postgres://app:${PASSWORD}@db.internal:5432/app`,
    REDIS_URL: `redis://:${PASSWORD}@cache:6379`,
    HTTPS_PROXY: `http://user:${PASSWORD}@proxy:3128`,
    PIP_EXTRA_INDEX_URL: `https://pypi.org/simple https://me:${PASSWORD}@pkgs.example.com/simple`,
    JDBC: `jdbc:postgresql://u:${PASSWORD}@h/db`,
  };
  const harmless: NodeJS.ProcessEnv = {
    PATH: '/usr/bin',
    PWD: '/home/someone/project',
    OLDPWD: '/home/someone',
    SSH_AUTH_SOCK: '/tmp/agent.sock',
    GIT_AUTHOR_NAME: 'Someone',
    GIT_AUTHOR_EMAIL: 'someone@example.com',
    HTTP_PROXY: 'http://proxy.internal:3128',
    API_BASE_URL: 'https://api.example.com/v1?x=1',
    EMAIL: 'someone@example.com',
    PASSAGE: 'x',
  };

  test('removes values that carry credentials whatever the name, and DSN/AUTH/PASS/PW name parts', () => {
    const scrubbed = scrubEnvironment({ ...leaking, ...withCredentials, ...harmless });
    assert.deepEqual(
      Object.keys(scrubbed).sort(),
      [...Object.keys(withCredentials), ...Object.keys(harmless)].sort(),
    );
    assert.deepEqual(
      removedVariables({ ...leaking, ...withCredentials, ...harmless }),
      Object.keys(leaking).sort(),
    );
    for (const [name, value] of Object.entries(harmless)) assert.equal(scrubbed[name], value);
  });

  test('redacts the user and password of URLs, keeping where they point', () => {
    assert.deepEqual(scrubEnvironment(withCredentials), {
      DATABASE_URL: 'postgres://REDACTED@db.internal:5432/app',
      REDIS_URL: 'redis://REDACTED@cache:6379',
      HTTPS_PROXY: 'http://REDACTED@proxy:3128',
      PIP_EXTRA_INDEX_URL: 'https://pypi.org/simple https://REDACTED@pkgs.example.com/simple',
      JDBC: 'jdbc:postgresql://REDACTED@h/db',
    });
  });

  test('allow keeps a variable whatever its value', () => {
    const scrubbed = scrubEnvironment(
      { ...leaking, ...withCredentials },
      { allow: ['DATABASE_URL', 'CI_NOTE'] },
    );
    assert.equal(scrubbed.DATABASE_URL, withCredentials.DATABASE_URL);
    assert.equal(scrubbed.CI_NOTE, leaking.CI_NOTE);
    assert.equal(scrubbed.UPLOADER, undefined);
  });

  test('nothing of the canary reaches a command', async (t) => {
    const root = await scratchDir((fn) => t.after(fn));
    const env = scrubEnvironment({
      ...leaking,
      ...withCredentials,
      ...harmless,
      PATH: process.env.PATH,
      HOME: root,
    });
    const result = await runCommandTool().execute({ command: 'env' }, await testContext(root, { env }));
    assert.equal(result.summary, 'exit 0');
    assert.ok(!result.output.includes(CANARY), result.output);
    assert.ok(!result.output.includes(PASSWORD), result.output);
    assert.doesNotMatch(result.output, /ghp_|sk-ant|AKIA|xoxb|PRIVATE KEY/);
    assert.match(result.output, /^DATABASE_URL=postgres:\/\/REDACTED@db\.internal:5432\/app$/m);
  });
});

describe('run_command with a scrubbed environment', () => {
  test('a canary key in the source environment does not reach the command', async () => {
    const root = await tempWorkspace();
    const env = scrubEnvironment({ ...SOURCE, PATH: process.env.PATH, HOME: root });
    const result = await runCommandTool().execute({ command: 'env' }, await testContext(root, { env }));
    assert.equal(result.summary, 'exit 0');
    assert.match(result.output, /^LANG=en_US\.UTF-8$/m);
    assert.ok(!result.output.includes(CANARY), result.output);
    assert.doesNotMatch(result.output, /API_KEY|TOKEN|SANTRA_/);
  });

  test('the canary does reach it when the environment is not scrubbed (the test can fail)', async () => {
    const root = await tempWorkspace();
    const env = { PATH: process.env.PATH, ANTHROPIC_API_KEY: CANARY };
    const result = await runCommandTool().execute({ command: 'env' }, await testContext(root, { env }));
    assert.ok(result.output.includes(CANARY));
  });
});

/**
 * The command environment by value: every credential format in secret-patterns.ts, each with a
 * sample that must be removed and a near miss that must be kept as it is; the secret names with
 * no secret word in them; URL credentials redacted in place; and ordinary values (paths, UUIDs,
 * git shas, image digests, base64) left alone. Samples are assembled at run time, so this file
 * holds no string a secret scanner would take for a real key.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { removedVariables, scrubEnvironment } from '../src/tools/commands/env.ts';
import { SECRET_FORMATS } from '../src/tools/commands/secret-patterns.ts';
import { runCommandTool } from '../src/tools/run-command.ts';
import { scratchDir } from './helpers/gated-context.ts';
import { testContext } from './helpers/tool-context.ts';

/** `length` characters cycling through `alphabet`: the body of a token that is no real token. */
function body(length: number, alphabet = 'aB3xY7kQ'): string {
  return Array.from({ length }, (_, i) => alphabet[i % alphabet.length]).join('');
}
/** What replaces a URL's credentials. */
const REDACTED = 'REDACTED';
const hex = (length: number) => body(length, '0a1b2c3d4e5f6789');
const letters = (length: number) => body(length, 'aBcDeFgH');

interface FormatCase {
  /** The SECRET_FORMATS row that must catch `secrets`. */
  format: string;
  secrets: string[];
  /** Values that look alike but are not the secret, kept unchanged. */
  nearMisses: string[];
}

const FORMAT_CASES: FormatCase[] = [
  {
    format: 'github',
    secrets: [`ghp_${body(36)}`, `gho_${body(36)}`, `ghs_${body(36)}`, `github_pat_11${body(80)}`],
    nearMisses: ['ghp_short', 'github_pat_'],
  },
  {
    format: 'gitlab',
    secrets: [`glpat-${body(20)}`, `glrt-${body(26)}`, `gldt-${body(20)}`, `glcbt-${body(24)}`],
    nearMisses: ['glpat-short', 'gitlab.example.com'],
  },
  { format: 'npm', secrets: [`npm_${body(36)}`], nearMisses: ['npm_config_cache', `npm_${body(12)}`] },
  {
    format: 'slack-token',
    secrets: [`xoxb-1234567890-1234567890-${body(24)}`, `xoxp-${body(30)}`, `xapp-1-A0${body(30)}`],
    nearMisses: ['xoxo', 'xoxb-short'],
  },
  {
    format: 'slack-webhook',
    secrets: [`https://hooks.slack.com/services/T0${body(8)}/B0${body(8)}/${body(24)}`],
    nearMisses: ['https://api.slack.com/apps', 'https://hooks.slack.com/'],
  },
  {
    format: 'discord-webhook',
    secrets: [
      `https://discord.com/api/webhooks/123456789012345678/${body(68)}`,
      `https://discordapp.com/api/v10/webhooks/123456789012345678/${body(68)}`,
    ],
    nearMisses: ['https://discord.com/channels/123456789012345678/987654321', 'https://discord.com/api/'],
  },
  {
    format: 'teams-webhook',
    secrets: [
      `https://contoso.webhook.office.com/webhookb2/${body(36)}@${body(36)}/IncomingWebhook/${hex(32)}`,
    ],
    nearMisses: ['https://outlook.office.com/mail/'],
  },
  {
    format: 'telegram-bot',
    secrets: [`7012345678:AA${body(33)}`, `https://api.telegram.org/bot123456789:AA${body(33)}/sendMessage`],
    nearMisses: ['localhost:8080', `1700000000:${hex(35)}`, 'https://api.telegram.org/'],
  },
  {
    format: 'google',
    secrets: [`AIza${body(35)}`, `GOCSPX-${body(28)}`, `ya29.${body(60)}`],
    nearMisses: ['AIzaSy', 'ya29.example'],
  },
  {
    format: 'aws-access-key-id',
    secrets: ['ASIAY34FZKBOKMUTVV7A', 'AKIAIOSFODNN7EXAMPLE'],
    nearMisses: ['Asia/Tokyo', 'ASIA_PACIFIC', 'AKIA'],
  },
  {
    format: 'sk-api-key',
    secrets: [`sk-ant-api03-${body(93)}AA`, `sk-proj-${body(60)}`, `sk-or-v1-${hex(64)}`],
    nearMisses: ['sk-learn', 'desk-top-environment-something-long'],
  },
  {
    format: 'stripe',
    secrets: [`sk_live_${body(24)}`, `rk_live_${body(24)}`, `sk_test_${body(24)}`, `whsec_${body(32)}`],
    // pk_ keys are publishable: they are meant to be seen.
    nearMisses: [`pk_live_${body(24)}`, 'sk_live_short'],
  },
  {
    format: 'huggingface',
    secrets: [`hf_${letters(34)}`, `api_org_${letters(34)}`],
    nearMisses: ['hf_cache', '/home/someone/.cache/huggingface/hub'],
  },
  {
    format: 'pypi',
    secrets: [`pypi-AgEIcHlwaS5vcmc${body(70)}`, `pypi-AgENdGVzdC5weXBpLm9yZw${body(70)}`],
    nearMisses: ['pypi-simple', 'https://pypi.org/simple'],
  },
  {
    format: 'sendgrid',
    secrets: [`SG.${body(22)}.${body(43)}`],
    nearMisses: ['SG.example.com', 'SG.1.2'],
  },
  {
    format: 'azure-connection-string',
    secrets: [
      `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${body(86)}==;EndpointSuffix=core.windows.net`,
      `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${body(44)}`,
      `BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&sig=${body(44)}`,
    ],
    nearMisses: [
      'DefaultEndpointsProtocol=https;AccountName=acct;EndpointSuffix=core.windows.net',
      'UseDevelopmentStorage=true',
    ],
  },
  {
    format: 'connection-string-password',
    secrets: [
      `Server=db;Database=app;User Id=sa;Password=${body(16)};`,
      `DRIVER={ODBC};UID=sa;PWD=${body(12)}`,
    ],
    nearMisses: ['Server=db;Database=app;Integrated Security=true', 'Server=db;Password=;'],
  },
  {
    format: 'azure-ad-client-secret',
    secrets: [`abc8Q~${body(34)}`],
    nearMisses: ['~/notes/Q~draft'],
  },
  {
    format: 'jwt',
    secrets: [
      `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${body(43)}`,
      // alg none: the signature is empty.
      'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0.',
    ],
    nearMisses: ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', 'eyJ.eyJ.x'],
  },
  {
    format: 'mapbox',
    secrets: [`sk.eyJ1IjoiYWNtZSIsImEiOiJjbGF6In0.${body(22)}`],
    nearMisses: [`pk.eyJ1IjoiYWNtZSIsImEiOiJjbGF6In0.${body(22)}`],
  },
  {
    format: '1password-service-account',
    secrets: [`ops_eyJ${body(300)}`],
    nearMisses: ['ops_team', 'ops_eyJshort'],
  },
  {
    format: 'private-key',
    secrets: [
      `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${body(64)}\n-----END PGP PRIVATE KEY BLOCK-----`,
      `-----BEGIN ENCRYPTED PRIVATE KEY-----\n${body(64)}\n-----END ENCRYPTED PRIVATE KEY-----`,
      `-----BEGIN EC PRIVATE KEY-----\n${body(64)}\n-----END EC PRIVATE KEY-----`,
      `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\n${body(44)}`,
    ],
    nearMisses: [
      `-----BEGIN CERTIFICATE-----\n${body(64)}\n-----END CERTIFICATE-----`,
      `-----BEGIN PUBLIC KEY-----\n${body(64)}\n-----END PUBLIC KEY-----`,
      `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${body(43)} someone@host`,
    ],
  },
  {
    format: 'authorization-header',
    secrets: [
      `Authorization: Basic ${body(20)}==`,
      `-H 'Authorization: token ${body(20)}'`,
      `Bearer ${body(40)}`,
    ],
    nearMisses: ['X-Request-Id: 42', 'bearer bonds'],
  },
  {
    format: 'digitalocean',
    secrets: [`dop_v1_${hex(64)}`, `doo_v1_${hex(64)}`],
    nearMisses: ['dop_v1_', `dop_v2_${hex(64)}`],
  },
  {
    format: 'llm-provider-keys',
    secrets: [`gsk_${body(52)}`, `pplx-${body(48)}`, `xai-${body(80)}`],
    nearMisses: ['xai-grok-4', 'pplx-sonar'],
  },
  { format: 'vault', secrets: [`hvs.${body(90)}`, `hvb.${body(120)}`], nearMisses: ['hvs.example.com'] },
  {
    format: 'doppler',
    secrets: [`dp.pt.${body(43)}`, `dp.st.dev.${body(40)}`],
    nearMisses: ['dp.pt.example'],
  },
  { format: 'databricks', secrets: [`dapi${hex(32)}`], nearMisses: ['dapi-docs', `dapi${hex(12)}`] },
  {
    format: 'sentry',
    secrets: [`sntrys_eyJ${body(80)}`, `sntryu_${hex(64)}`],
    nearMisses: ['sntrys_', 'https://o1.ingest.sentry.io/42'],
  },
  {
    format: 'grafana',
    secrets: [`glsa_${body(32)}_${hex(8)}`, `glc_eyJ${body(80)}`],
    nearMisses: ['glsa_x'],
  },
  { format: 'tailscale', secrets: [`tskey-auth-k${body(30)}`], nearMisses: ['tskey-auth-'] },
  { format: 'docker-hub', secrets: [`dckr_pat_${body(27)}`], nearMisses: ['dckr_pat_'] },
  { format: 'shopify', secrets: [`shpat_${hex(32)}`, `shpss_${hex(32)}`], nearMisses: ['shpat_'] },
  { format: 'linear', secrets: [`lin_api_${body(40)}`], nearMisses: ['lin_api_docs'] },
  { format: 'postman', secrets: [`PMAK-${hex(24)}-${hex(34)}`], nearMisses: ['PMAK-'] },
  {
    format: 'age',
    secrets: [`AGE-SECRET-KEY-1${body(58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')}`],
    // A recipient is the public half.
    nearMisses: [`age1${body(58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}`],
  },
];

// Ordinary values no format may take for a secret, each under a name that says nothing.
const ORDINARY: Record<string, string> = {
  A_PATH: '/home/someone/projects/santra/node_modules/.bin:/usr/local/bin:/usr/bin',
  A_UUID: '550e8400-e29b-41d4-a716-446655440000',
  A_SHA: 'e83c5163316f89bfbde7d9ab23ca2e25604af290',
  A_SHA256: hex(64),
  AN_IMAGE: `ghcr.io/acme/app@sha256:${hex(64)}`,
  A_TAGGED_IMAGE: 'registry.example.com:5000/team/app:1.2.3',
  A_DATA_URI:
    'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  A_BASE64: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrVENC',
  A_COLORS: 'rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01',
  TZ: 'Asia/Tokyo',
  DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
  TERM_SESSION_ID: 'w0t0p0:8C2E2B4E-0B1D-4F5A-9C6A-3C2B8F1E9D7A',
  HTTP_PROXY: 'http://proxy.internal:3128',
  NO_PROXY: 'localhost,127.0.0.1,.internal',
  GOPROXY: 'https://proxy.golang.org,direct',
  API_BASE_URL: 'https://api.example.com/v1?x=1&page=2#section',
  REMOTE: 'git@github.com:acme/app.git',
  EMAIL: 'someone@example.com',
  JAVA_TOOL_OPTIONS: '-Dhttps.proxyHost=proxy.internal -Dhttps.proxyPort=3128',
  STARTED: '2024-01-01T00:00:00Z',
};

describe('a value in a known credential format is removed, whatever its name', () => {
  test('every format in secret-patterns.ts has a case here', () => {
    const covered = new Set(FORMAT_CASES.map((c) => c.format));
    assert.deepEqual(
      SECRET_FORMATS.map((f) => f.name).filter((name) => !covered.has(name)),
      [],
    );
  });

  for (const { format, secrets, nearMisses } of FORMAT_CASES) {
    test(`${format}: removed, and its near misses kept`, () => {
      for (const secret of secrets) {
        assert.deepEqual(removedVariables({ NOTE: secret }), ['NOTE'], `${format}: ${secret}`);
        // Embedded in a longer value too (a command line, a JSON blob).
        assert.deepEqual(removedVariables({ NOTE: `--flag "${secret}" x` }), ['NOTE'], secret);
      }
      for (const nearMiss of nearMisses) {
        assert.deepEqual(scrubEnvironment({ NOTE: nearMiss }), { NOTE: nearMiss }, `${format}: ${nearMiss}`);
      }
    });

    test(`${format}: its samples are caught by its own row`, () => {
      const row = SECRET_FORMATS.find((f) => f.name === format);
      assert.ok(row, format);
      for (const secret of secrets) assert.match(secret, row.pattern);
    });
  }

  test('ordinary values (paths, UUIDs, shas, image digests, base64, proxies without credentials) are kept as they are', () => {
    assert.deepEqual(scrubEnvironment(ORDINARY), ORDINARY);
    for (const value of Object.values(ORDINARY)) {
      assert.deepEqual(
        SECRET_FORMATS.filter((f) => f.pattern.test(value)).map((f) => f.name),
        [],
        value,
      );
    }
  });
});

describe('secret names without a secret word', () => {
  const secretNames = [
    'MYSQL_PWD',
    'DB_PWD',
    'ORACLE_PWD',
    'OP_SESSION_my',
    'OP_SESSION_acme_team',
    'BW_SESSION',
    'SSHPASS',
    'GITHUB_PAT',
    'AZURE_DEVOPS_EXT_PAT',
    'GOOGLE_CREDS',
    'SLACK_WEBHOOK_URL',
    'DISCORD_WEBHOOK',
  ];
  const harmlessNames = [
    'PWD',
    'OLDPWD',
    'XDG_SESSION_ID',
    'XDG_SESSION_TYPE',
    'DESKTOP_SESSION',
    'GIT_ASKPASS',
    'SSH_ASKPASS',
    'LD_LIBRARY_PATH',
    'OP_ACCOUNT',
    'PATTERN_DIR',
  ];

  test('are removed, whatever they hold', () => {
    const env = Object.fromEntries(secretNames.map((name) => [name, 'plain-looking-value']));
    assert.deepEqual(removedVariables(env), [...secretNames].sort());
  });

  test('names that only look alike are kept', () => {
    const env = Object.fromEntries(harmlessNames.map((name) => [name, '/home/someone']));
    assert.deepEqual(scrubEnvironment(env), env);
  });

  test('allow keeps one, exactly', () => {
    const scrubbed = scrubEnvironment({ MYSQL_PWD: 'pw', OP_SESSION_my: 'tok' }, { allow: ['MYSQL_PWD'] });
    assert.deepEqual(scrubbed, { MYSQL_PWD: 'pw' });
  });
});

describe('URL credentials are redacted in place', () => {
  const pw = 'Canary7f3aPw';
  const cases: [string, string, string][] = [
    // name, value, what the command sees
    ['HTTPS_PROXY', `http://proxy-user:${pw}@proxy.internal:3128`, `http://${REDACTED}@proxy.internal:3128`],
    ['https_proxy', `http://${pw}@proxy.internal:3128/`, `http://${REDACTED}@proxy.internal:3128/`],
    [
      'DATABASE_URL',
      `postgres://app:${pw}@db.internal:5432/app?sslmode=require`,
      `postgres://${REDACTED}@db.internal:5432/app?sslmode=require`,
    ],
    // A password holding @, # and ? unencoded is still redacted whole.
    ['MONGO_URL', `mongodb://app:p@ss#w?rd${pw}@db/app`, `mongodb://${REDACTED}@db/app`],
    ['REDIS_URL', `redis://:${pw}@cache:6379/0`, `redis://${REDACTED}@cache:6379/0`],
    ['JDBC', `jdbc:postgresql://u:${pw}@h/db`, `jdbc:postgresql://${REDACTED}@h/db`],
    [
      'PIP_EXTRA_INDEX_URL',
      `https://pypi.org/simple https://me:${pw}@pkgs.example.com/simple`,
      `https://pypi.org/simple https://${REDACTED}@pkgs.example.com/simple`,
    ],
    [
      'GOPROXY',
      `https://proxy.golang.org,https://u:${pw}@goproxy.corp.example/,direct`,
      `https://proxy.golang.org,https://${REDACTED}@goproxy.corp.example/,direct`,
    ],
    [
      'PIP_INDEX_URL',
      `https://pkgs.example.com/simple/?token=${pw}`,
      `https://pkgs.example.com/simple/?token=${REDACTED}`,
    ],
    [
      'BLOB_URL',
      `https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&se=2030-01-01&sp=r&sig=${pw}%3D`,
      `https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&se=2030-01-01&sp=r&sig=${REDACTED}`,
    ],
    [
      'DOWNLOAD',
      `https://bucket.s3.amazonaws.com/f?X-Amz-Date=20240101T000000Z&X-Amz-Security-Token=${pw}&X-Amz-Signature=${pw}`,
      `https://bucket.s3.amazonaws.com/f?X-Amz-Date=20240101T000000Z&X-Amz-Security-Token=${REDACTED}&X-Amz-Signature=${REDACTED}`,
    ],
    [
      'CALLBACK',
      `https://app.example.com/cb#access_token=${pw}&state=xyz`,
      `https://app.example.com/cb#access_token=${REDACTED}&state=xyz`,
    ],
    [
      'SERVICE',
      `https://h.example/api?apiKey=${pw}&api_key=${pw}&private_token=${pw}&pwd=${pw}&auth=${pw}&q=ok`,
      `https://h.example/api?apiKey=${REDACTED}&api_key=${REDACTED}&private_token=${REDACTED}&pwd=${REDACTED}&auth=${REDACTED}&q=ok`,
    ],
    ['APP', `https://h.example/app;jsessionid=${pw}`, `https://h.example/app;jsessionid=${REDACTED}`],
    [
      'LOGIN',
      `https://a.example/login?next=https://u:${pw}@b.example/`,
      `https://a.example/login?next=https://${REDACTED}@b.example/`,
    ],
    // The user alone may be the secret (https://TOKEN@host, a Sentry DSN's key).
    [
      'MIRROR',
      `https://${pw}@git.example.com/acme/app.git`,
      `https://${REDACTED}@git.example.com/acme/app.git`,
    ],
  ];

  for (const [name, value, expected] of cases) {
    test(`${name}=${value}`, () => {
      const scrubbed = scrubEnvironment({ [name]: value });
      assert.equal(scrubbed[name], expected);
      assert.ok(!expected.includes(pw));
      // Redacting again changes nothing.
      assert.deepEqual(scrubEnvironment(scrubbed), scrubbed);
    });
  }

  test('a token in a known format inside a URL removes the whole variable', () => {
    assert.deepEqual(
      removedVariables({
        MAPS: `https://maps.googleapis.com/maps/api/js?key=AIza${body(35)}`,
        PRESIGNED: 'https://b.s3.amazonaws.com/f?X-Amz-Credential=ASIAY34FZKBOKMUTVV7A%2F20240101',
        REMOTE: `https://x-access-token:ghs_${body(36)}@github.com/acme/app.git`,
      }),
      ['MAPS', 'PRESIGNED', 'REMOTE'],
    );
  });

  test('allow keeps the URL as it is', () => {
    const value = `http://u:${pw}@proxy.internal:3128`;
    assert.equal(scrubEnvironment({ HTTPS_PROXY: value }, { allow: ['HTTPS_PROXY'] }).HTTPS_PROXY, value);
  });
});

describe('run_command with an environment full of secrets', () => {
  const secrets = FORMAT_CASES.flatMap((c) => c.secrets);
  const source: NodeJS.ProcessEnv = {
    ...ORDINARY,
    ...Object.fromEntries(secrets.map((secret, i) => [`VALUE_${i}`, secret])),
    MYSQL_PWD: 'canary-mysql-pw-0b9e',
    OP_SESSION_my: 'canary-op-session-41d2',
    HTTPS_PROXY: 'http://u:canary-proxy-pw-77c1@proxy.internal:3128',
    PIP_INDEX_URL: 'https://pkgs.example.com/simple/?token=canary-index-token-5a0f',
  };
  const canaries = [
    ...secrets,
    'canary-mysql-pw-0b9e',
    'canary-op-session-41d2',
    'canary-proxy-pw-77c1',
    'canary-index-token-5a0f',
  ];

  async function runEnv(root: string, env: NodeJS.ProcessEnv): Promise<string> {
    const result = await runCommandTool().execute(
      { command: 'env' },
      await testContext(root, { env: { ...env, PATH: process.env.PATH, HOME: root } }),
    );
    assert.equal(result.summary, 'exit 0');
    return result.output;
  }

  test('`env` prints none of the secrets, and the ordinary values and redacted URLs', async (t) => {
    const root = await scratchDir((fn) => t.after(fn));
    const output = await runEnv(root, scrubEnvironment(source));
    for (const canary of canaries) assert.ok(!output.includes(canary), canary);
    assert.match(output, /^TZ=Asia\/Tokyo$/m);
    assert.match(output, /^HTTPS_PROXY=http:\/\/REDACTED@proxy\.internal:3128$/m);
    assert.match(output, /^PIP_INDEX_URL=https:\/\/pkgs\.example\.com\/simple\/\?token=REDACTED$/m);
  });

  test('unscrubbed, `env` prints them (the test can fail)', async (t) => {
    const root = await scratchDir((fn) => t.after(fn));
    const output = await runEnv(root, source);
    for (const canary of canaries) assert.ok(output.includes(canary), canary);
  });
});

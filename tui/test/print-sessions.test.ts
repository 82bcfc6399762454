/**
 * `santra sessions --latest` and `--path`: the newest session of the project, and the session
 * files' paths (found by the documented layout, whatever SANTRA_HOME says), so that
 * `santra -p --replay "$(santra sessions --latest --path)"` works everywhere. A session with no
 * file (a shared store) is said on stderr, with exit code 1. The end-to-end tests run the built
 * santra and santra-server; their sessions are made by replaying a recording, so no provider is
 * needed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { sessionPaths } from '../src/print/list-command.ts';
import { configDir, sessionFile } from '../src/client/session-files.ts';

const SANTRA = fileURLToPath(new URL('../../dist/santra.js', import.meta.url));
const MODEL = 'anthropic/claude-sonnet-4-5';
const AT = '2026-11-23T10:00:00.000Z';
const USAGE = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };

const dirs: string[] = [];
after(async () => {
  for (const path of dirs) await removeTempDir(path);
});
function dir(prefix: string): string {
  const path = tempDir(prefix);
  dirs.push(path);
  return path;
}

const info = (sessionId: string) => ({
  sessionId,
  title: 'Say hello',
  workspaceRoot: '/work/project',
  createdAt: AT,
  updatedAt: AT,
  messageCount: 2,
  usage: USAGE,
  costUsd: 0,
  lastSeq: 3,
});

describe('where a session file is', () => {
  test('the config directory: SANTRA_HOME, else an absolute XDG_CONFIG_HOME, else ~/.config', () => {
    assert.equal(configDir({ SANTRA_HOME: '/s', XDG_CONFIG_HOME: '/x', HOME: '/h' }), '/s');
    assert.equal(configDir({ SANTRA_HOME: ' ', XDG_CONFIG_HOME: '/x', HOME: '/h' }), '/x/santra');
    assert.equal(configDir({ XDG_CONFIG_HOME: 'relative', HOME: '/h' }), '/h/.config/santra');
    assert.equal(configDir({ HOME: '/h' }), '/h/.config/santra');
  });

  test('a session is found in whichever project folder holds it; a shared store has no file, and says so', () => {
    const sessions = dir('santra-sessions-');
    mkdirSync(join(sessions, 'other-0123456789ab'));
    mkdirSync(join(sessions, 'project-ba9876543210'));
    const file = join(sessions, 'project-ba9876543210', 'ses_here.jsonl');
    writeFileSync(file, '{}\n');
    assert.equal(sessionFile(sessions, 'ses_here'), file);
    assert.equal(sessionFile(sessions, 'ses_elsewhere'), undefined);
    assert.equal(sessionFile(sessions, '../project-ba9876543210/ses_here'), undefined, 'an id is no path');
    assert.equal(sessionFile(join(sessions, 'none'), 'ses_here'), undefined);

    assert.deepEqual(sessionPaths([info('ses_here')], sessions), { paths: [file] });
    const shared = sessionPaths([info('ses_here'), info('ses_elsewhere')], sessions);
    assert.deepEqual(shared.paths, [file]);
    assert.match(
      shared.problem ?? '',
      /^ses_elsewhere has no session file under .*santra-sessions-.*: a session kept in a shared store \(sessions\.store: Redis, PostgreSQL\) is not a file\. To replay one, write it to a file with session\/export/,
    );
    assert.match(sessionPaths([], sessions).problem ?? '', /no saved sessions in this project yet/);
  });
});

/** A recording of one chat answer (server/src/sessions/records.ts), to make saved sessions with. */
function recording(answer: string): string {
  const records = [
    {
      type: 'session',
      format: 1,
      sessionId: 'ses_recorded',
      workspaceRoot: '/where/it/was/recorded',
      createdAt: AT,
      santraVersion: '0.1.0',
    },
    { type: 'prompt', runId: 'run_1', at: AT, text: 'Say hello', model: MODEL, mode: 'simple_chat' },
    {
      type: 'message',
      runId: 'run_1',
      message: { role: 'user', content: [{ type: 'text', text: 'Say hello' }] },
    },
    {
      type: 'model_output',
      runId: 'run_1',
      agentId: 'assistant',
      turn: 1,
      inputMessages: 1,
      content: [{ type: 'text', text: answer }],
      stopReason: 'end_turn',
      usage: USAGE,
    },
    { type: 'run_end', runId: 'run_1', status: 'completed', model: MODEL, usage: USAGE, costUsd: 0, at: AT },
  ];
  const file = join(dir('santra-recording-'), 'session.jsonl');
  writeFileSync(file, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
  return file;
}

/** The built santra in `workspace`, with `env` (a home of its own) and nothing else: no key. */
async function santra(args: string[], workspace: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [SANTRA, ...args, '--cwd', workspace], {
    cwd: workspace,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

describe('santra sessions --latest --path', () => {
  test('without SANTRA_HOME: the newest session file alone on stdout, which --replay takes', async () => {
    const workspace = dir('santra-ws-');
    // No SANTRA_HOME, no XDG_CONFIG_HOME: the config directory is ~/.config/santra.
    const env = { HOME: dir('santra-home-') };
    const none = await santra(['sessions', '--latest', '--path'], workspace, env);
    assert.deepEqual([none.code, none.stdout], [1, '']);
    assert.match(none.stderr, /no saved sessions in this project yet/);

    for (const answer of ['First hello.', 'Second hello.'])
      assert.equal((await santra(['-p', '--replay', recording(answer)], workspace, env)).code, 0);
    const latest = await santra(['sessions', '--latest', '--path'], workspace, env);
    assert.equal(latest.code, 0, latest.stderr);
    const path = latest.stdout.trimEnd();
    assert.equal(latest.stdout, `${path}\n`, 'one line, nothing else');
    assert.ok(path.startsWith(join(env.HOME, '.config', 'santra', 'sessions')), path);
    assert.match(readFileSync(path, 'utf8'), /Second hello\./);

    const all = await santra(['sessions', '--path'], workspace, env);
    assert.deepEqual(all.stdout.trimEnd().split('\n').length, 2);
    assert.equal(all.stdout.split('\n')[0], path, 'newest first');
    const table = await santra(['sessions', '--latest'], workspace, env);
    assert.equal(table.stdout.split('\n').filter((line) => line.startsWith('ses_')).length, 1);

    const replay = await santra(['-p', '--replay', path], workspace, env);
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(replay.stdout, 'Second hello.\n');
  });
});

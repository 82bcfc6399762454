/**
 * `santra import`, the built command, in a home of its own: `--all` finds this project's Claude
 * Code transcripts, Codex rollouts and pi sessions where each agent keeps them (and no other
 * project's), imports each once, and a file it cannot read is named with its line while the
 * others are imported. Then `santra -p --resume` continues an imported session, and the fake
 * provider's request shows the model was sent the imported history.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startFakeProvider } from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../temp-dirs.ts';

const SANTRA = fileURLToPath(new URL('../../dist/santra.js', import.meta.url));
const TRANSCRIPTS = fileURLToPath(new URL('../../server/test/fixtures/transcripts/', import.meta.url));
const CLAUDE = '4f35e220-c435-4cf7-b9b9-f40426042847';
const CODEX = 'rollout-2026-02-23T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846a.jsonl';
const PI = '2026-01-12T09-00-00-000Z_1f9d2a3c-5b6e-4f70-8a91-b2c3d4e5f607.jsonl';
const KEY = 'sk-ant-import-test-not-a-key';

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await removeTempDir(dir);
});
function dir(prefix: string): string {
  const path = tempDir(prefix);
  dirs.push(path);
  return path;
}

/** A fixture with the agent's working directory moved to `cwd`. */
const fixture = (path: string, cwd: string) =>
  readFileSync(join(TRANSCRIPTS, path), 'utf8').replaceAll('/home/ada/project', cwd);

function write(path: string, text: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

async function santra(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [SANTRA, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Memory's extraction after runs is a model call of its own: off, so the scripted turn is the run's.
    env: { PATH: process.env.PATH, NO_COLOR: '1', SANTRA_MEMORY_AUTO_EXTRACT: '0', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

describe('santra import', () => {
  test("--all imports this project's transcripts of each agent, once; a resumed one sends the model its history", async () => {
    const home = dir('santra-home-');
    const project = dir('santra-ws-');
    const other = '/home/someone/else';
    const env = { HOME: home };
    // Claude Code: the project's folder, a sub-agent's file inside it (not a transcript of its own), another project.
    const claudeDir = join(home, '.claude', 'projects', project.replace(/[^A-Za-z0-9]/g, '-'));
    write(join(claudeDir, `${CLAUDE}.jsonl`), fixture(`claude/${CLAUDE}.jsonl`, project));
    write(join(claudeDir, CLAUDE, 'subagents', 'agent-a9a57a7.jsonl'), '{"type":"user"}\n');
    write(
      join(home, '.claude', 'projects', '-home-someone-else', 'b.jsonl'),
      fixture(`claude/${CLAUDE}.jsonl`, other),
    );
    // Codex: by date; the rollout whose session_meta names this project, not the other one.
    write(join(home, '.codex', 'sessions', '2026', '02', '23', CODEX), fixture(`codex/${CODEX}`, project));
    write(
      join(home, '.codex', 'sessions', '2026', '02', '24', CODEX.replace('12-47-42', '09-00-00')),
      fixture(`codex/${CODEX}`, other),
    );
    // pi: its folder for the project.
    const piDir = join(home, '.pi', 'agent', 'sessions', `--${project.slice(1).replaceAll('/', '-')}--`);
    write(join(piDir, PI), fixture(`pi/${PI}`, project));

    const claude = await santra(['import', 'claude', '--all', '--cwd', project], project, env);
    assert.equal(claude.code, 0, claude.stderr);
    const [line, ...more] = claude.stdout.trimEnd().split('\n');
    assert.deepEqual(more, [], 'one transcript: the sub-agent and the other project are not');
    assert.match(
      line ?? '',
      new RegExp(
        `${CLAUDE}\\.jsonl: imported as (ses_[\\w-]+) \\(2 prompts, 17 messages; 7 tool calls: 6 as Santra's tools, 1 as text\\)$`,
      ),
    );
    const sessionId = /imported as (ses_[\w-]+)/.exec(line ?? '')?.[1] ?? '';
    assert.match(claude.stderr, /santra --resume <session id>/);

    const again = await santra(['import', 'claude', '--all', '--cwd', project], project, env);
    assert.equal(
      again.stdout,
      `${join(claudeDir, `${CLAUDE}.jsonl`)}: already imported as ${sessionId}, unchanged\n`,
    );

    const codex = await santra(['import', 'codex', '--all', '--cwd', project, '--json'], project, env);
    assert.equal(codex.code, 0, codex.stderr);
    const results = codex.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { file: string; outcome: string });
    assert.deepEqual(
      results.map((r) => [r.file.endsWith(join('23', CODEX)), r.outcome]),
      [[true, 'created']],
    );
    const pi = await santra(['import', 'pi', '--all', '--cwd', project], project, env);
    assert.match(
      pi.stdout,
      /: imported as ses_[\w-]+ \(3 prompts, 13 messages; 3 tool calls: 3 as Santra's tools, 0 as text\)\n$/,
    );

    const listed = await santra(['sessions', '--json', '--cwd', project], project, env);
    const sessions = (
      JSON.parse(listed.stdout) as { sessions: Array<{ costUsd: number; imported?: { from: string } }> }
    ).sessions;
    assert.deepEqual(sessions.map((s) => s.imported?.from).sort(), ['claude', 'codex', 'pi']);
    assert.ok(sessions.every((s) => s.costUsd === 0));

    const fake = await startFakeProvider('anthropic', [{ text: 'It uses a template string now.' }]);
    try {
      const resumed = await santra(
        ['-p', '--resume', sessionId, '--cwd', project, 'What does greet() return now?'],
        project,
        {
          ...env,
          ANTHROPIC_API_KEY: KEY,
          ANTHROPIC_BASE_URL: fake.url,
          SANTRA_MODEL: 'anthropic/claude-sonnet-4-5',
        },
      );
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(resumed.stdout, 'It uses a template string now.\n');
      const sent = JSON.stringify((fake.requests.at(-1)?.body as { messages: unknown[] }).messages);
      assert.match(sent, /Make greet\(\) use a template string, then run the tests/);
      assert.match(
        sent,
        /"type":"tool_use","id":"toolu_01JgK6mBq1wYx8V3cRtLp2Ns","name":"str_replace","input":\{"path":"src\/greet.ts"/,
      );
      assert.match(sent, /What does greet\(\) return now\?/);
    } finally {
      await fake.close();
    }

    // Played back like any other session; not executed again: no model answered it here.
    const file = (await santra(['sessions', '--path', '--cwd', project], project, env)).stdout
      .split('\n')
      .find((path) => path.endsWith(`${sessionId}.jsonl`));
    assert.ok(file);
    const played = await santra(['replay', file], project, env);
    assert.equal(played.code, 0, played.stderr);
    assert.match(played.stdout, /› Make greet\(\) use a template string, then run the tests\n/);
    assert.match(played.stdout, /✓ read_file src\/greet\.ts — 4 lines\n/);
    const rerun = await santra(['-p', '--replay', file, '--cwd', project], project, env);
    assert.equal(rerun.code, 2);
    assert.match(
      rerun.stderr,
      /its runs were imported from Claude Code \(santra import\), not run by Santra.*Play it back with santra replay /,
    );
  });

  test('a file it cannot read is named with its line; the others are imported; usage errors exit 2', async () => {
    const home = dir('santra-home-');
    const project = dir('santra-ws-');
    const env = { HOME: home };
    const good = write(join(dir('santra-in-'), 'good.jsonl'), fixture(`pi/${PI}`, project));
    const lines = fixture(`pi/${PI}`, project).split('\n');
    lines[3] = '{"type":"message","id":';
    const bad = write(join(dir('santra-in-'), 'bad.jsonl'), lines.join('\n'));
    const run = await santra(['import', 'pi', bad, good, '--cwd', project], project, env);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      new RegExp(
        `^santra: ${bad}:4: not valid JSON \\(23 characters\\); the file is damaged, or not a pi transcript\\. Nothing was imported\\.$`,
        'm',
      ),
    );
    assert.match(run.stdout, /good\.jsonl: imported as ses_/);

    for (const args of [
      ['import'],
      ['import', 'gemini', good],
      ['import', 'claude'],
      ['import', 'claude', good, '--all'],
    ]) {
      const usage = await santra(args, project, env);
      assert.equal(usage.code, 2, args.join(' '));
      assert.match(usage.stderr, /^santra: .*\nRun santra --help for usage\.\n$/);
    }
    const none = await santra(['import', 'codex', '--all', '--cwd', project], project, env);
    assert.equal(none.code, 0);
    assert.match(none.stderr, /no Codex transcripts of .* \(looked in .*\.codex\/sessions\)/);
  });
});

/**
 * A tool context whose approval gate is the real one — gate.ts with the policy of policy.ts and
 * the default read-only allowlist, as tool-context.ts builds it — in front of a fake user who
 * records every approval request and rejects it. So a command that runs at all ran unasked.
 * Also: temp directories that are removed after the test, and git for the tests' own setup,
 * which never reads the real home's or the system's configuration.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApproveParams } from '#protocol';
import { DEFAULT_READ_ONLY } from '../../src/approval/command-allowlist.ts';
import { createGate, SessionApprovals } from '../../src/approval/gate.ts';
import { createPolicy } from '../../src/approval/policy.ts';
import { type TestContext, testContext } from './tool-context.ts';

export interface GatedContext extends TestContext {
  /** Every approval request the fake user saw (and rejected). */
  asked: ApproveParams[];
}

export async function gatedContext(
  root: string,
  env: NodeJS.ProcessEnv,
  readOnlyCommands: readonly string[] = DEFAULT_READ_ONLY,
): Promise<GatedContext> {
  const context = Object.assign(await testContext(root, { env }), { asked: [] as ApproveParams[] });
  context.gate = createGate({
    approve: (params) => {
      context.asked.push(params);
      return Promise.resolve({ decision: 'reject' });
    },
    autoApprove: false,
    session: new SessionApprovals(),
    policy: createPolicy({ tools: {}, denyCommands: [], askCommands: [], readOnlyCommands }),
    isProtected: () => undefined,
    sessionId: 'session-test',
    runId: context.runId,
    agentId: context.agentId,
    toolCallId: context.toolCallId,
    toolName: 'run_command',
    signal: context.signal,
  });
  return context;
}

/** A fresh temp directory (real path), removed when `cleanup` runs it (pass `t.after` or `after`). */
export async function scratchDir(
  cleanup: (fn: () => Promise<void>) => void,
  prefix = 'santra-sec-',
): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  cleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** What commands run with in these tests: PATH, a HOME of their own, no system git configuration. */
export function commandEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C', ...extra };
}

/** git for a test's setup, with a throwaway identity and `home` as HOME. */
export function git(home: string, cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], {
    cwd,
    env: commandEnv(home),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * A command's processes that left its process group (setsid: a session of their own, as
 * bubblewrap's sandboxed command is until its die-with-parent takes hold) are killed with it when
 * the run is cancelled or the command times out: a cancel at any moment leaves nothing running.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { runProcess } from '../src/tools/commands/run-process.ts';

/** Live processes whose command line is exactly `argv`. */
function running(argv: readonly string[]): number[] {
  const wanted = argv.join('\0');
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0$/, '');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (cmdline === wanted && state !== 'Z') found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Waits (bounded) until `check` holds, looking every few milliseconds. */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('runProcess: processes that left the group', () => {
  for (const how of ['cancelled', 'timeout'] as const) {
    test(`a setsid child is killed when the command is ${how}`, async () => {
      // A unique argument, so no other process of the machine is taken for it.
      const seconds = `${61 + Math.floor(Math.random() * 1000)}.${process.pid}`;
      const detached = ['sleep', seconds];
      const controller = new AbortController();
      const outcome = runProcess({
        file: '/bin/sh',
        args: ['-c', `setsid sleep ${seconds} & sleep 120`],
        cwd: '/',
        env: { PATH: process.env.PATH },
        timeoutMs: how === 'timeout' ? 1_500 : 60_000,
        signal: controller.signal,
        outputLimit: 1024,
        graceMs: 200,
      });
      await until(() => running(detached).length === 1, 'the setsid sleep to start');
      if (how === 'cancelled') controller.abort();
      const ended = await outcome;
      assert.equal(ended.ended, how);
      await until(() => running(detached).length === 0, 'the setsid sleep to be gone', 3_000);
    });
  }
});

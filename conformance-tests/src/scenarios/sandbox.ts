/** §7.3.1 the OS sandbox: the profile on every command, and escalation only through a person. */
import { existsSync, rmSync } from 'node:fs';
import type { Scenario } from '../run/runner.ts';
import type { Json, ServerUnderTest } from '../wire/peer.ts';
import { prompt, sentToModel, toolResults } from './helpers.ts';

/** Outside every workspace: the sandbox keeps it read-only, even for root. */
const OUTSIDE = '/santra-conformance-sandbox-escape.txt';

const escalation: Scenario = {
  name: 'sandbox: every command names its profile; running outside it is asked, and a refusal holds',
  profile: 'santra',
  covers: ['SANTRA-APPROVE-017', 'SANTRA-APPROVE-018', 'SANTRA-APPROVE-019'],
  async run(ctx) {
    const { santra } = ctx;
    const server: ServerUnderTest = await ctx.open();
    const asked: Json[] = [];
    server.handle('approve', (message) => {
      const params = message.params as Json;
      asked.push(params);
      // The command itself is allowed; running it outside the sandbox is not.
      return { decision: params.escalation === undefined ? 'allow' : 'reject' };
    });
    // Without a working sandbox an allowed command would really write outside: it is not tried.
    const sandboxed = ctx.declared.has('sandbox');
    await ctx.script(
      santra.runCommand({ command: sandboxed ? `echo escaped > ${OUTSIDE}` : 'echo unsandboxed' }),
      { text: 'The sandbox stopped it.' },
    );
    const run = await prompt(server, santra.executor('Write outside the workspace'));
    const commands = asked.filter((params) => params.kind === 'command');
    ctx.check(
      'SANTRA-APPROVE-017',
      commands.length > 0 && commands.every((params) => typeof params.sandbox === 'string'),
      `command approvals: ${JSON.stringify(commands.map((p) => ({ command: p.command, sandbox: p.sandbox, escalation: p.escalation })))}`,
    );
    const escalations = commands.filter((params) => params.escalation !== undefined);
    const result = toolResults(run.phases)[0];
    ctx.check(
      'SANTRA-APPROVE-018',
      sandboxed &&
        escalations.length === 1 &&
        escalations[0]?.sandbox === 'danger-full-access' &&
        escalations[0]?.protected === true &&
        !existsSync(OUTSIDE),
      `escalations asked: ${JSON.stringify(escalations)}; ${OUTSIDE} ${existsSync(OUTSIDE) ? 'was written' : 'was not written'}`,
    );
    const told = sentToModel(ctx.anthropic.requests, 1);
    ctx.check(
      'SANTRA-APPROVE-019',
      sandboxed &&
        escalations.length === 1 &&
        !existsSync(OUTSIDE) &&
        result?.status === 'error' &&
        /sandbox/i.test(told),
      `after the refused escalation: the tool result ${JSON.stringify(result)}; the model was told about the sandbox: ${/sandbox/i.test(told)}`,
    );
    // A server that let it out leaves nothing behind the suite.
    rmSync(OUTSIDE, { force: true });
  },
};

export const SANDBOX: Scenario[] = [escalation];

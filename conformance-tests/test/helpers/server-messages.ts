/**
 * The client-mode tests' check of the suite itself: what the scripted server sent follows the
 * schema (the client's answers are what the checks judge).
 */
import type { ScenarioRun } from '../../src/client/driver.ts';
import { asMessage, type RpcMessage } from '../../src/client/wire.ts';
import { MessageValidator } from '../../src/spec/schema.ts';

/** Each message of the scripted server that does not match the schema, with what is wrong; `skip`: those unknown on purpose. */
export function invalidServerMessages(runs: readonly ScenarioRun[], skip?: RegExp): string[] {
  const validator = new MessageValidator();
  const problems: string[] = [];
  for (const run of runs) {
    const methods = new Map<string, string>();
    for (const entry of run.report?.transcript ?? []) {
      const message = asMessage(entry) as (RpcMessage & Record<string, unknown>) | undefined;
      if (message === undefined) continue;
      if (entry.from === 'client' && typeof message.method === 'string' && Object.hasOwn(message, 'id'))
        methods.set(String(message.id), message.method);
      if (entry.from !== 'server' || skip?.test(JSON.stringify(message)) === true) continue;
      problems.push(
        ...validator
          .check(message, (id) => methods.get(id))
          .map((problem) => `${run.scenario}: ${JSON.stringify(message)}: ${problem}`),
      );
    }
  }
  return problems;
}

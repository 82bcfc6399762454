/**
 * `santra-conformance client [options] -- <client command…>`: checks a client implementation
 * against the client requirements by playing a scripted server to it (driver.ts). conformance-
 * tests/src/bin.ts hands `client` and what follows to runClientMode.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runClientSuite } from './driver.ts';
import { buildReport, formatText, junitText } from './report.ts';
import { clientRequirements } from './requirements.ts';
import { SCENARIOS } from './scenarios.ts';

export const CLIENT_HELP = `Usage: santra-conformance client [options] -- <client command…>

Plays a scripted Santra server to a client and checks what the client sends against the client
requirements (SANTRA-CLIENT-NNN, protocol-spec/README.md "Client requirements"). One fresh client
process per scenario. The client must start the server it is given: santra and santra -p take it
from SANTRA_SERVER; other clients can read the command from SANTRA_CONFORMANCE_SERVER_CMD (a JSON
list). Cues for the user (the file SANTRA_CONFORMANCE_CUE names; a line "cancel" when the run
should be cancelled) are answered with SIGINT unless --cancel client. A client that lends its
editor (capabilities.fs, capabilities.terminal, §7.5) is asked to save a file in its workspace and
to run commands; SANTRA_CONFORMANCE_SECRET_TOKEN, set for it, must be kept from them.

Options:
  --scenario <name>     play only this scenario (repeatable): ${SCENARIOS.map((s) => s.name).join(', ')}
  --cancel <how>        sigint (default: the driver sends SIGINT to the client) or client (the
                        client's own driver script reads the cue file)
  --unattended          nobody answers for the client (protected approvals must be rejected)
  --format <format>     text (default) or json
  --report <file>       also write the JSON report to this file
  --junit <file>        also write a JUnit XML report to this file
  --deadline-ms <ms>    each scenario's time limit (default 30000)
  -h, --help            print this help

Exit status: 0 when every mandatory and applicable capability-gated requirement passed, 1 when one
failed or a scenario could not run, 2 for a usage error.
`;

/** Runs the client mode with the arguments after `client`; resolves with the exit code. */
export async function runClientMode(argv: readonly string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        scenario: { type: 'string', multiple: true },
        cancel: { type: 'string', default: 'sigint' },
        unattended: { type: 'boolean', default: false },
        format: { type: 'string', default: 'text' },
        report: { type: 'string' },
        junit: { type: 'string' },
        'deadline-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    return usage((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(CLIENT_HELP);
    return 0;
  }
  if (positionals.length === 0) return usage('no client command: give it after --, e.g. -- santra -p hello');
  if (values.cancel !== 'sigint' && values.cancel !== 'client')
    return usage(`--cancel must be sigint or client, not ${values.cancel}`);
  if (values.format !== 'text' && values.format !== 'json')
    return usage(`--format must be text or json, not ${values.format}`);
  const unknown = (values.scenario ?? []).filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0)
    return usage(
      `unknown scenario ${unknown.join(', ')}; the scenarios are ${SCENARIOS.map((s) => s.name).join(', ')}`,
    );
  const deadline = values['deadline-ms'] === undefined ? undefined : Number(values['deadline-ms']);
  if (deadline !== undefined && !(Number.isInteger(deadline) && deadline > 0))
    return usage(
      `--deadline-ms must be a positive whole number of milliseconds, not ${values['deadline-ms']}`,
    );

  try {
    clientRequirements(); // the spec is read now, not after every scenario has run
  } catch (error) {
    process.stderr.write(`santra-conformance client: ${(error as Error).message}\n`);
    return 2;
  }
  const runs = await runClientSuite({
    command: positionals,
    cancel: values.cancel,
    unattended: values.unattended,
    ...(values.scenario === undefined ? {} : { scenarios: values.scenario }),
    ...(deadline === undefined ? {} : { deadlineMs: deadline }),
  });
  const report = buildReport(positionals, runs);
  const json = `${JSON.stringify(report, null, 2)}\n`;
  if (values.report !== undefined) writeFileSync(values.report, json);
  if (values.junit !== undefined) writeFileSync(values.junit, junitText(report));
  process.stdout.write(values.format === 'json' ? json : formatText(report));
  return report.ok ? 0 : 1;
}

function usage(message: string): number {
  process.stderr.write(
    `santra-conformance client: ${message}\nRun santra-conformance client --help for usage.\n`,
  );
  return 2;
}

/**
 * Entry point of `santra`. The interactive terminal client arrives with the TUI issue; until then
 * this prints its version and help and points at the server.
 */
import { parseArgs } from 'node:util';
import { PROTOCOL_VERSION } from '#protocol/version';
import packageJson from '../../package.json' with { type: 'json' };

const HELP = `santra ${packageJson.version} — an AI coding assistant for the terminal (protocol ${PROTOCOL_VERSION})

Usage: santra [options]

Options:
  -v, --version   print the version
  -h, --help      print this help

The interactive terminal UI is not part of this build yet. The agent runtime is available as
santra-server, a stdio server speaking the Santra protocol (see protocol-spec/README.md).`;

let values: { version?: boolean; help?: boolean };
try {
  values = parseArgs({
    args: process.argv.slice(2),
    options: { version: { type: 'boolean', short: 'v' }, help: { type: 'boolean', short: 'h' } },
  }).values;
} catch (error) {
  process.stderr.write(
    `santra: ${error instanceof Error ? error.message : String(error)}\nRun santra --help for usage.\n`,
  );
  process.exit(2);
}
process.stdout.write(
  values.version ? `santra ${packageJson.version} (protocol ${PROTOCOL_VERSION})\n` : `${HELP}\n`,
);

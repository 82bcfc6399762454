/**
 * Entry point of `santra-server`. Only the CLI is loaded up front; the server (zod, vscode-jsonrpc,
 * the runtime) is imported when there is something to serve.
 */
import { enableCompileCache } from 'node:module';
import { EXIT_USAGE, parseCli } from './cli.ts';

const command = parseCli(process.argv.slice(2), process.env);
switch (command.action) {
  case 'version':
  case 'help':
    // Not serving: stdout is the terminal's here. Once serving, stdout carries protocol only.
    process.stdout.write(`${command.text}\n`);
    break;
  case 'usage_error':
    process.stderr.write(`${command.text}\n`);
    process.exitCode = EXIT_USAGE;
    break;
  case 'serve': {
    // V8's code cache for what is loaded from here on (in the OS temp directory; Node checks each
    // entry against the source): about 15 ms off every start and first prompt.
    enableCompileCache();
    const { runStdioServer } = await import('./main.ts');
    await runStdioServer(command.settings);
    break;
  }
  case 'adapter': {
    enableCompileCache();
    const { runAdapterServer } = await import('./main.ts');
    await runAdapterServer(command.settings, command.mode);
    break;
  }
  default: {
    const exhaustive: never = command;
    throw new Error(`unknown command ${JSON.stringify(exhaustive)}`);
  }
}

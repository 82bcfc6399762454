/**
 * Entry point of `santra`. Only argument parsing is loaded up front; the headless client (zod,
 * vscode-jsonrpc) is imported when `-p` asks for it. The interactive terminal UI arrives with the
 * TUI issue.
 */
import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';
import { PROTOCOL_VERSION } from '#protocol/version';
import packageJson from '../../package.json' with { type: 'json' };
import { EXIT, helpText, parseCommandLine } from './print/args.ts';
import { findWorkplace } from './print/project-root.ts';
import { serverArgs, serverPathFor, startServer } from './print/server-process.ts';

const command = parseCommandLine(process.argv.slice(2), {
  stdinIsTTY: process.stdin.isTTY === true,
  cwd: process.cwd(),
});
switch (command.action) {
  case 'version':
    process.stdout.write(`santra ${packageJson.version} (protocol ${PROTOCOL_VERSION})\n`);
    break;
  case 'help':
    process.stdout.write(`${helpText(packageJson.version)}\n`);
    break;
  case 'usage_error':
    process.stderr.write(`santra: ${command.message}\nRun santra --help for usage.\n`);
    process.exitCode = EXIT.usage;
    break;
  case 'print': {
    // Bundled, this module and the server's are siblings, dist/chunks/santra{,-server}.js (the
    // Node version was checked by dist/santra.js, so the server skips dist/santra-server.js's
    // check). This must be computed here, in the bin module.
    const serverPath = fileURLToPath(new URL('./santra-server.js', import.meta.url));
    // Start the server first, so it loads while this client loads the rest of itself (two cores,
    // two processes); with a prompt still to read from stdin, runPrint starts it instead.
    const server =
      command.options.prompt === undefined
        ? undefined
        : startServer(
            serverPathFor(serverPath, process.env).path,
            findWorkplace(command.options.cwd, command.options.cwdGiven).root,
            serverArgs(command.options),
          );
    enableCompileCache(); // as the server does: V8's code cache for the rest of the client
    const { runPrint } = await import('./print/main.ts');
    const code = await runPrint(command.options, {
      serverPath,
      clientVersion: packageJson.version,
      ...(server === undefined ? {} : { server }),
    });
    // Exit explicitly once stdout has drained: a server that ignored its exit must not keep us alive.
    process.stdout.write('', () => process.exit(code));
    break;
  }
  case 'list': {
    // As for print: the server's module beside this one.
    const serverPath = fileURLToPath(new URL('./santra-server.js', import.meta.url));
    const { runList } = await import('./print/list-command.ts');
    const code = await runList(command.options, { serverPath, clientVersion: packageJson.version });
    process.stdout.write('', () => process.exit(code));
    break;
  }
  default: {
    const exhaustive: never = command;
    throw new Error(`unknown command ${JSON.stringify(exhaustive)}`);
  }
}

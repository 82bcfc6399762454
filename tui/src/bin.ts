/**
 * Entry point of `santra`. Only argument parsing is loaded up front; the headless client (zod,
 * vscode-jsonrpc) is imported when `-p` asks for it, and the interactive UI (ui/, Ink) when `santra`
 * runs with no arguments on a terminal (after ui/typed-ahead.ts, small, has taken the terminal
 * into raw mode so that nothing typed meanwhile is lost).
 */
import { enableCompileCache } from 'node:module';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { PROTOCOL_VERSION } from '#protocol/version';
import packageJson from '../../package.json' with { type: 'json' };
import { type Command, EXIT, helpText, parseCommandLine } from './print/args.ts';
import { findWorkplace } from './client/project-root.ts';
import { serverArgs, serverPathFor, startServer } from './client/server-process.ts';
import { holdTypedAhead } from './ui/typed-ahead.ts';

// `santra` alone on a terminal is the interactive UI. (print/args.ts still answers help for no
// arguments, which is what a pipe or a script gets.)
const terminal = process.stdin.isTTY === true && process.stdout.isTTY === true;
const command: Command =
  terminal && process.argv.length === 2
    ? { action: 'interactive' }
    : parseCommandLine(process.argv.slice(2), {
        stdinIsTTY: process.stdin.isTTY === true,
        cwd: process.cwd(),
        terminal,
      });
switch (command.action) {
  case 'interactive': {
    // Raw mode first: what is typed while santra starts is held for the UI, Enter included.
    const typedAhead = holdTypedAhead(process.stdin, process.stdout);
    // As for print: the server's module beside this one, started before the UI loads.
    const serverPath = fileURLToPath(new URL('./santra-server.js', import.meta.url));
    const server = startServer(
      serverPathFor(serverPath, process.env).path,
      findWorkplace(process.cwd(), false).root,
    );
    enableCompileCache();
    const { runInteractive } = await import('./ui/main.ts');
    const code = await runInteractive({
      serverPath,
      clientVersion: packageJson.version,
      typedAhead,
      ...(command.resume === undefined ? {} : { resume: command.resume }),
      ...(command.permissionMode === undefined ? {} : { permissionMode: command.permissionMode }),
      ...(server === undefined ? {} : { server }),
    });
    process.stdout.write('', () => process.exit(code));
    break;
  }
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
  case 'replay': {
    // A recording played in the UI: no server at all.
    enableCompileCache();
    const { runReplay } = await import('./ui/replay-main.ts');
    const code = await runReplay(command.file);
    process.stdout.write('', () => process.exit(code));
    break;
  }
  case 'import': {
    const { parseImportArgs, runImport } = await import('./import/import-command.ts');
    const options = parseImportArgs(command.args, process.cwd());
    if ('error' in options) {
      process.stderr.write(`santra: ${options.error}\nRun santra --help for usage.\n`);
      process.exitCode = EXIT.usage;
      break;
    }
    const serverPath = fileURLToPath(new URL('./santra-server.js', import.meta.url));
    const code = await runImport(options, { serverPath, clientVersion: packageJson.version });
    process.stdout.write('', () => process.exit(code));
    break;
  }
  case 'mcp': {
    const { parseMcpArgs, runMcp } = await import('./print/mcp-command.ts');
    const options = parseMcpArgs(command.args, process.cwd());
    if ('error' in options) {
      process.stderr.write(`santra: ${options.error}\nRun santra --help for usage.\n`);
      process.exitCode = EXIT.usage;
      break;
    }
    const serverPath = fileURLToPath(new URL('./santra-server.js', import.meta.url));
    const code = await runMcp(options, { serverPath, clientVersion: packageJson.version });
    process.stdout.write('', () => process.exit(code));
    break;
  }
  case 'knowledge': {
    const { parseKnowledgeArgs, runKnowledge } = await import('./print/knowledge-command.ts');
    const options = parseKnowledgeArgs(command.what, command.args, process.cwd());
    if ('error' in options) {
      process.stderr.write(`santra: ${options.error}\nRun santra --help for usage.\n`);
      process.exitCode = EXIT.usage;
      break;
    }
    const serverPath = fileURLToPath(new URL('./santra-server.js', import.meta.url));
    const code = await runKnowledge(options, { serverPath, clientVersion: packageJson.version });
    process.stdout.write('', () => process.exit(code));
    break;
  }
  case 'attach': {
    const { parseAttachArgs, runAttach } = await import('./attach/attach-command.ts');
    const options = parseAttachArgs(command.args, process.cwd());
    if ('error' in options) {
      process.stderr.write(`santra: ${options.error}\nRun santra --help for usage.\n`);
      process.exitCode = EXIT.usage;
      break;
    }
    const serverPath = fileURLToPath(new URL('./santra-server.js', import.meta.url));
    const code = await runAttach(options, { serverPath, clientVersion: packageJson.version });
    process.stdout.write('', () => process.exit(code));
    break;
  }
  case 'send': {
    const { parseSendArgs, runSend } = await import('./send/send-command.ts');
    const options = parseSendArgs(command.args, process.cwd());
    if ('error' in options) {
      process.stderr.write(`santra: ${options.error}\nRun santra --help for usage.\n`);
      process.exitCode = EXIT.usage;
      break;
    }
    const serverPath = fileURLToPath(new URL('./santra-server.js', import.meta.url));
    const code = await runSend(options, { serverPath, clientVersion: packageJson.version });
    process.stdout.write('', () => process.exit(code));
    break;
  }
  case 'fleet': {
    const serverPath = fileURLToPath(new URL('./santra-server.js', import.meta.url));
    const { runFleetCommand } = await import('./fleet/command.ts');
    const code = await runFleetCommand(command.command, command.args, {
      serverPath,
      clientVersion: packageJson.version,
    });
    process.stdout.write('', () => process.exit(code));
    break;
  }
  case 'adapter': {
    // The editor talks to the server directly: its stdin and stdout are ours, passed through.
    const serverPath = fileURLToPath(new URL('./santra-server.js', import.meta.url));
    const { serverCommand } = await import('./client/server-process.ts');
    const { spawn } = await import('node:child_process');
    const { command: program, args } = serverCommand(serverPathFor(serverPath, process.env).path);
    const child = spawn(program, [...args, command.mode, ...command.args], { stdio: 'inherit' });
    // The editor ends us with a signal or by closing stdin; pass the signal on and exit as it does.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
      process.on(signal, () => child.kill(signal));
    child.on('error', (error) => {
      process.stderr.write(`santra ${command.mode}: could not start the server: ${error.message}\n`);
      process.exit(EXIT.failure);
    });
    child.on('exit', (code, signal) =>
      process.exit(code ?? 128 + (signal === null ? 0 : constants.signals[signal])),
    );
    break;
  }
  default: {
    const exhaustive: never = command;
    throw new Error(`unknown command ${JSON.stringify(exhaustive)}`);
  }
}

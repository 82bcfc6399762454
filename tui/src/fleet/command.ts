/**
 * `santra worker` and `santra submit`: each reads its own arguments (a usage error
 * exits 2 with the fix, as every santra command does) and runs.
 */
import { EXIT } from '../print/args.ts';

export interface FleetEnvironment {
  serverPath: string;
  clientVersion: string;
}

export async function runFleetCommand(
  command: 'worker' | 'submit',
  args: readonly string[],
  environment: FleetEnvironment,
): Promise<number> {
  const usage = (message: string) => {
    process.stderr.write(`santra ${command}: ${message}\nSee docs/fleet.md, or santra --help.\n`);
    return EXIT.usage;
  };
  switch (command) {
    case 'worker': {
      const { parseWorkerArgs, runWorker } = await import('./worker.ts');
      const options = parseWorkerArgs(args);
      return 'error' in options ? usage(options.error) : runWorker(options, environment);
    }
    case 'submit': {
      const { parseSubmitArgs, runSubmit } = await import('./submit.ts');
      const options = parseSubmitArgs(args, process.cwd());
      return 'error' in options ? usage(options.error) : runSubmit(options);
    }
    default: {
      const exhaustive: never = command;
      throw new Error(`unknown fleet command ${String(exhaustive)}`);
    }
  }
}

import { stat } from 'node:fs/promises';
import type { InitializeParams } from '#protocol';
import type { Logger } from './log.ts';
import { ProtocolFault } from './protocol-fault.ts';
import type { Runtime } from './runtime-contract.ts';
import { SANTRA_VERSION } from './version.ts';

export interface RuntimeOptions {
  log: Logger;
}

/**
 * The agent runtime behind the protocol. The lifecycle is served here; the run methods (`prompt`
 * and the `phase`, `approve` and `ask` traffic it produces) are registered in `handlers` as they
 * are built.
 */
export function createRuntime(options: RuntimeOptions): Runtime {
  let workspaceRoot: string | undefined;
  return {
    serverInfo: { name: 'santra-server', version: SANTRA_VERSION },
    sends: [],
    handlers: {},
    async initialize(params: InitializeParams) {
      await assertDirectory(params.workspaceRoot);
      workspaceRoot = params.workspaceRoot;
      options.log.debug(`workspace root ${workspaceRoot}`);
      return { phaseTypes: [], providers: [] };
    },
    shutdown() {
      options.log.debug('runtime shut down');
      return Promise.resolve();
    },
  };
}

async function assertDirectory(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) {
    throw new ProtocolFault(
      'InvalidParams',
      `Invalid params for initialize: params.workspaceRoot: ${path} does not exist.`,
      {
        issues: [{ path: 'params.workspaceRoot', message: `${path} does not exist` }],
      },
    );
  }
  if (!info.isDirectory()) {
    throw new ProtocolFault(
      'InvalidParams',
      `Invalid params for initialize: params.workspaceRoot: ${path} is not a directory.`,
      {
        issues: [{ path: 'params.workspaceRoot', message: `${path} is not a directory` }],
      },
    );
  }
}

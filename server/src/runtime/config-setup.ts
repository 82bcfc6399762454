/**
 * `config/setup`: the first-run setup of any client. The provider's key and the default model are
 * merged into the user's config file (written atomically, mode 0600, by config/config-file.ts),
 * then the config is read again, so the next prompt of this connection uses them: no client
 * writes Santra's config itself, and none has to restart its server.
 */
import type { ParamsOf, ResultOf } from '#protocol';
import { ConfigError, type ResolvedConfig, updateConfigFile } from '../config/config.ts';
import { selectModel } from '../agent/model-selection.ts';
import type { Redactor } from '../support/log.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';

export interface ConfigSetupDeps {
  env: NodeJS.ProcessEnv;
  redactor: Redactor;
  /** The config in use; `use` replaces it, and the connection's default model, for every later request. */
  current(): ResolvedConfig;
  /** Reads the config again, made ready for use as `initialize` makes it (secrets redacted). */
  reload(): Promise<ResolvedConfig>;
  use(config: ResolvedConfig, model: string): void;
}

export async function setupConfig(
  params: ParamsOf<'config/setup'>,
  deps: ConfigSetupDeps,
): Promise<ResultOf<'config/setup'>> {
  // Before anything can log or echo it.
  if (params.apiKey !== undefined) deps.redactor.add(params.apiKey);
  const config = deps.current();
  const known = Object.keys(config.providers);
  if (!known.includes(params.provider)) {
    throw invalid(
      'provider',
      `there is no provider "${params.provider}"; model/list names them: ${known.join(', ')}`,
    );
  }
  if (!params.model.startsWith(`${params.provider}/`) || params.model.length === params.provider.length + 1) {
    throw invalid('model', `expected a model of ${params.provider}, as "${params.provider}/<model id>"`);
  }
  try {
    await updateConfigFile(deps.env, {
      model: params.model,
      ...(params.apiKey === undefined ? {} : { providers: { [params.provider]: { apiKey: params.apiKey } } }),
    });
    const reloaded = await deps.reload();
    const selection = selectModel(reloaded, params.model);
    if (!selection.ok) throw new ProtocolFault('ModelUnavailable', selection.message);
    // The connection's default too, as model/set would: SANTRA_MODEL in the environment outranks
    // the file's model when a server starts, but the user has just chosen this one.
    deps.use(reloaded, selection.ref);
    return { file: reloaded.file, model: selection.ref };
  } catch (error) {
    if (error instanceof ConfigError)
      throw new ProtocolFault('RequestFailed', deps.redactor.apply(error.message));
    throw error;
  }
}

function invalid(field: string, message: string): ProtocolFault {
  return new ProtocolFault('InvalidParams', `Invalid params for config/setup: params.${field}: ${message}`, {
    issues: [{ path: `params.${field}`, message }],
  });
}

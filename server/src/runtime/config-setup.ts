/**
 * `config/setup`: the first-run setup of any client. The provider's key and the default model are
 * merged into the user's config file (written atomically, mode 0600, under a lock between
 * processes, by config/config-file.ts), then the config is read again, so the next prompt of this
 * connection uses them: no client writes Santra's config itself, and none has to restart its
 * server.
 *
 * Nothing is written that would not work: the key must be one an HTTP header can carry, and the
 * configuration the file would give — the environment applied, as the next start would — must
 * serve the model, or the file is left as it was and the error names the setting to fix.
 */
import type { ParamsOf, ResultOf } from '#protocol';
import {
  ConfigError,
  PLAIN_ASCII,
  type ResolvedConfig,
  keyProblem,
  resolveConfig,
  unsendableCharacter,
  updateConfigFile,
} from '../config/config.ts';
import { selectModel } from '../agent/model-selection.ts';
import type { Redactor } from '../support/log.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import { redactUrls } from '../support/url-redaction.ts';

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
  const bad = params.apiKey === undefined ? undefined : unsendableCharacter(params.apiKey);
  if (bad !== undefined) {
    throw invalid(
      'apiKey',
      `the key contains ${bad}, which cannot be sent in an HTTP header. ${PLAIN_ASCII}`,
    );
  }
  try {
    await updateConfigFile(
      deps.env,
      {
        model: params.model,
        ...(params.apiKey === undefined
          ? {}
          : { providers: { [params.provider]: { apiKey: params.apiKey } } }),
      },
      { check: (merged, file) => usable(resolveConfig(deps.env, merged, file), params) },
    );
    const reloaded = await deps.reload();
    const selection = selectModel(reloaded, params.model);
    if (!selection.ok) throw new ProtocolFault('ModelUnavailable', redactUrls(selection.message));
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

/**
 * Throws unless `config` (the file as it would be written, with the environment) can serve the
 * model: its provider's key, wherever it comes from, can be sent, and the model resolves.
 */
function usable(config: ResolvedConfig, params: ParamsOf<'config/setup'>): void {
  const endpoint = config.providers[params.provider];
  const source = config.keySources[params.provider];
  if (endpoint?.apiKey !== undefined && source !== undefined) {
    const problem = keyProblem(endpoint.name, endpoint.apiKey, source);
    if (problem !== undefined) {
      // The environment outranks the file: a key saved now would not be used.
      const outranks =
        'env' in source && params.apiKey !== undefined
          ? ` It is used instead of the key given here: fix ${source.env} or unset it.`
          : '';
      throw new ProtocolFault('ModelUnavailable', `${problem}${outranks} Nothing was saved.`);
    }
  }
  const selection = selectModel(config, params.model);
  // Its message may name a base URL, which may carry a password.
  if (!selection.ok)
    throw new ProtocolFault('ModelUnavailable', `${redactUrls(selection.message)} Nothing was saved.`);
}

function invalid(field: string, message: string): ProtocolFault {
  return new ProtocolFault('InvalidParams', `Invalid params for config/setup: params.${field}: ${message}`, {
    issues: [{ path: `params.${field}`, message }],
  });
}

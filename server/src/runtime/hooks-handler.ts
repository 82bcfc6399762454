/**
 * `hooks/list` (§7.8.2): the hooks of the user config and of the project's `.santra/settings.json`,
 * where each comes from and whether it runs, for `santra hooks` and every client's view. It never
 * asks for trust: an untrusted project hook is listed as such.
 */
import type { Hooks } from '../hooks/hooks.ts';
import type { RequestHandlers } from './contract.ts';

export function hooksHandler(
  hooks: () => Promise<Hooks | undefined>,
): Required<Pick<RequestHandlers, 'hooks/list'>> {
  return {
    async 'hooks/list'() {
      const current = await hooks();
      if (current === undefined) return { hooks: [], problems: [] };
      const { hooks: listed, problems } = await current.list();
      return {
        hooks: listed.map((hook) => ({
          event: hook.event,
          ...(hook.matcher === undefined ? {} : { matcher: hook.matcher }),
          command: hook.command,
          timeoutSeconds: hook.timeoutSeconds,
          source: hook.source,
          file: hook.file,
          trusted: hook.trusted,
        })),
        problems,
      };
    },
  };
}

/**
 * The OS sandbox as one function any spawn can go through: `wrap` turns a program, its arguments,
 * directory and environment into the same spawn inside the sandbox (bubblewrap on Linux,
 * sandbox-exec on macOS) for a profile. run_command uses it; hooks and stdio MCP servers are to
 * spawn through it the same way (a `SpawnSpec` in, a `SandboxedSpawn` out, `finish` once the
 * process has ended). `shellLine` gives the same as a shell command line, for a terminal the
 * editor runs on this machine.
 *
 * Built on bubblewrap directly, not on @anthropic-ai/sandbox-runtime: see docs/security.md
 * ("The OS sandbox") for the measurements and the reasons.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapArgs, planMounts, protectedIn, PROXY_PORT, relayCommand } from './bwrap.ts';
import { probeSandbox, type SandboxStatus } from './probe.ts';
import type { SandboxProfile, SandboxScope, SandboxSettings } from './profile.ts';
import { type DomainProxy, startDomainProxy } from './proxy.ts';
import { seatbeltPolicy } from './seatbelt.ts';
import { seccompProgram } from './seccomp.ts';

export interface SpawnSpec {
  file: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A spawn inside the sandbox. Give the child `extraInputs` on descriptors 3, 4, … (pipes it reads
 * them from); call `finish` once the process has ended.
 */
export interface SandboxedSpawn extends SpawnSpec {
  /** The profile it runs under; `danger-full-access`: unchanged, outside any sandbox. */
  profile: SandboxProfile;
  extraInputs: Uint8Array[];
  /** Whether the command has no network at all (then resolver errors are the sandbox's doing). */
  noNetwork: boolean;
  /** Notes for the model: e.g. allowed domains that cannot be reached here. */
  notes: string[];
  /** Releases what the wrap holds (the proxy, descriptors); says what the proxy refused. */
  finish(): Promise<{ blocked: string[] }>;
}

export interface WrapOptions {
  protectedWritable?: boolean;
}

export interface SandboxOptions {
  settings: SandboxSettings;
  scope: SandboxScope;
  /** The environment the server runs in: PATH to find bwrap, XDG_RUNTIME_DIR. */
  env: NodeJS.ProcessEnv;
  /** The probe's answer, when already known (tests); else probed on first use. */
  status?: SandboxStatus | Promise<SandboxStatus>;
  platform?: NodeJS.Platform;
}

/** The server's sandbox: settings, what the probe found, and the wrap. */
export class CommandSandbox {
  readonly settings: SandboxSettings;
  readonly scope: SandboxScope;
  readonly #env: NodeJS.ProcessEnv;
  readonly #platform: NodeJS.Platform;
  #status: Promise<SandboxStatus> | undefined;
  #toldUnavailable = false;

  constructor(options: SandboxOptions) {
    this.settings = options.settings;
    this.scope = options.scope;
    this.#env = options.env;
    this.#platform = options.platform ?? process.platform;
    this.#status = options.status === undefined ? undefined : Promise.resolve(options.status);
  }

  /** Whether the sandbox works here (probed once). Never rejects. */
  status(): Promise<SandboxStatus> {
    this.#status ??= probeSandbox({ env: this.#env, platform: this.#platform });
    return this.#status;
  }

  /** The profile commands run under here: the configured one, or `danger-full-access` when there is no sandbox. */
  async effectiveProfile(): Promise<SandboxProfile> {
    return (await this.status()).available ? this.settings.profile : 'danger-full-access';
  }

  /**
   * Once per server: why commands are not sandboxed, when the configuration wants a sandbox and
   * there is none; afterwards undefined.
   */
  async unavailableNotice(): Promise<string | undefined> {
    if (this.#toldUnavailable || this.settings.profile === 'danger-full-access') return undefined;
    const status = await this.status();
    if (status.available) return undefined;
    this.#toldUnavailable = true;
    return `Commands run without an OS sandbox here: ${status.problem} Each command is asked, as without a sandbox. Run \`santra doctor\` for the fix.`;
  }

  /**
   * `spec` inside the sandbox with `profile` (default: the configured one). `protectedWritable`:
   * a person allowed this command knowing it writes a protected location, so those stay
   * writable (the rest of the profile holds).
   */
  async wrap(
    spec: SpawnSpec,
    profile: SandboxProfile = this.settings.profile,
    options: WrapOptions = {},
  ): Promise<SandboxedSpawn> {
    const status = await this.status();
    const unchanged = (): SandboxedSpawn => ({
      ...spec,
      profile: 'danger-full-access',
      extraInputs: [],
      noNetwork: false,
      notes: [],
      finish: () => Promise.resolve({ blocked: [] }),
    });
    if (profile === 'danger-full-access' || !status.available) return unchanged();
    const notes: string[] = [];
    let proxy: DomainProxy | undefined;
    const wantsNetwork = this.settings.allowedDomains.length > 0;
    if (wantsNetwork) {
      if (status.mechanism === 'bubblewrap' && status.relay === undefined)
        notes.push(status.relayProblem ?? '');
      else
        proxy = await startDomainProxy(this.settings.allowedDomains, {
          tcp: status.mechanism === 'seatbelt',
        });
    }
    const finishProxy = async () => {
      const blocked = proxy === undefined ? [] : [...proxy.blocked];
      await proxy?.close();
      return blocked;
    };
    const proxyEnv = (port: number): NodeJS.ProcessEnv => {
      const url = `http://127.0.0.1:${port}`;
      return {
        HTTP_PROXY: url,
        HTTPS_PROXY: url,
        ALL_PROXY: url,
        http_proxy: url,
        https_proxy: url,
        all_proxy: url,
        NO_PROXY: 'localhost,127.0.0.1,::1',
        no_proxy: 'localhost,127.0.0.1,::1',
      };
    };
    try {
      if (status.mechanism === 'seatbelt') {
        const tempDir = await mkdtemp(join(tmpdir(), 'santra-cmd-'));
        const policy = seatbeltPolicy({
          profile,
          scope: this.scope,
          tempDir,
          readOnly: options.protectedWritable === true ? [] : this.#protectedPaths(profile, spec.cwd),
          ...(proxy?.port === undefined ? {} : { proxyPort: proxy.port }),
        });
        return {
          file: status.program,
          args: ['-p', policy, spec.file, ...spec.args],
          cwd: spec.cwd,
          env: { ...spec.env, TMPDIR: tempDir, ...(proxy?.port === undefined ? {} : proxyEnv(proxy.port)) },
          profile,
          extraInputs: [],
          noNetwork: proxy === undefined,
          notes,
          finish: async () => {
            const blocked = await finishProxy();
            await rm(tempDir, { recursive: true, force: true });
            return { blocked };
          },
        };
      }
      const seccomp = seccompProgram();
      const mounts = planMounts(profile, this.scope, spec.cwd, { env: this.#env, uid: process.getuid?.() });
      const plan = {
        ...mounts,
        readOnly: options.protectedWritable === true ? [] : mounts.readOnly,
        disableUserns: status.disableUserns,
        ...(seccomp === undefined ? {} : { seccompFd: 3 }),
        ...(proxy === undefined ? {} : { proxySocket: proxy.socketPath }),
      };
      const inner =
        proxy === undefined || status.relay === undefined
          ? { file: spec.file, args: [...spec.args] }
          : relayCommand(status.relay, spec.file, spec.args);
      return {
        file: status.program,
        args: bwrapArgs(plan, inner.file, inner.args),
        cwd: spec.cwd,
        env: {
          ...spec.env,
          TMPDIR: '/tmp',
          TMP: '/tmp',
          TEMP: '/tmp',
          ...(proxy === undefined ? {} : proxyEnv(PROXY_PORT)),
        },
        profile,
        extraInputs: seccomp === undefined ? [] : [seccomp],
        noNetwork: proxy === undefined,
        notes,
        finish: async () => ({ blocked: await finishProxy() }),
      };
    } catch (error) {
      await finishProxy();
      throw error;
    }
  }

  /**
   * The same as `wrap`, as one line for `/bin/sh -c` (a terminal the editor runs on this
   * machine): the seccomp program is read from a file through a redirection.
   */
  async shellLine(
    spec: Omit<SpawnSpec, 'file' | 'args'> & { command: string },
    profile: SandboxProfile = this.settings.profile,
    options: WrapOptions = {},
  ): Promise<{ command: string; env: NodeJS.ProcessEnv; wrapped: SandboxedSpawn }> {
    const wrapped = await this.wrap(
      { file: '/bin/sh', args: ['-c', spec.command], cwd: spec.cwd, env: spec.env },
      profile,
      options,
    );
    if (wrapped.profile === 'danger-full-access') return { command: spec.command, env: spec.env, wrapped };
    // The editor's shell cannot be handed a pipe: it reads the program from a file.
    const seccomp = wrapped.extraInputs.length > 0 ? await seccompFile() : undefined;
    const args = wrapped.args.map((arg, index) =>
      seccomp !== undefined && wrapped.args[index - 1] === '--seccomp' ? '9' : arg,
    );
    const line = [wrapped.file, ...args].map(shellQuote).join(' ');
    return {
      command: seccomp === undefined ? `exec ${line}` : `exec ${line} 9< ${shellQuote(seccomp)}`,
      env: wrapped.env,
      wrapped,
    };
  }

  #protectedPaths(profile: SandboxProfile, cwd: string): string[] {
    if (profile !== 'workspace-write') return [];
    return [this.scope.workspaceRoot, ...this.scope.allowedDirs].flatMap((root) => protectedIn(root, cwd));
  }
}

let written: Promise<string | undefined> | undefined;

/**
 * The seccomp program, written once per process to a private file, for the editor's terminal
 * (undefined: no table for this architecture). Removed when the server exits.
 */
function seccompFile(): Promise<string | undefined> {
  written ??= (async () => {
    const program = seccompProgram();
    if (program === undefined) return undefined;
    const dir = await mkdtemp(join(tmpdir(), 'santra-seccomp-'));
    const file = join(dir, 'filter.bpf');
    await writeFile(file, program, { mode: 0o600 });
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return file;
  })();
  return written;
}

/** `text` as one word of a POSIX shell. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * What a scenario works with: a temporary home and workspace, the fake model providers (behind
 * relays), server processes started with the documented environment (spec §0.1, and §0.1.1 for a
 * scenario of the Santra profile), and `check`, which records the outcome of one requirement.
 * Every server a scenario starts is also watched throughout for the requirements that hold for
 * every message (schema, framing, errors, phase order), so each scenario checks those too.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PROTOCOL_VERSION } from '../../../protocol-spec/src/version.ts';
import { type FakeProvider, type FakeTurn, startFakeProvider } from '../fake-providers/index.ts';
import type { Profile, Requirement } from '../spec/requirements.ts';
import type { MessageValidator } from '../spec/schema.ts';
import { type Json, ServerUnderTest } from '../wire/peer.ts';
import { watch } from './invariants.ts';
import { Relay } from './proxy.ts';
import { SANTRA_PROFILE, type SantraProfile, santraEnvironment } from './santra-profile.ts';

export const FAKE_ANTHROPIC_KEY = 'sk-ant-conformance-fake-key-0000';
export const FAKE_OPENAI_KEY = 'sk-conformance-fake-openai-key-0000';

export interface Outcome {
  id: string;
  scenario: string;
  ok: boolean;
  /** Not applicable: the requirement is gated on a capability the server does not declare. */
  notApplicable?: boolean;
  detail: string;
}

export interface StartOptions {
  /** Configure the OpenAI fake as a redirected endpoint too (OPENAI_API_KEY, OPENAI_BASE_URL). */
  openai?: boolean;
  /** Give the server no key at all. */
  noKeys?: boolean;
  /** Another workspace than the scenario's. */
  workspace?: string;
}

export interface InitializeOptions {
  approve?: boolean;
  ask?: boolean;
  /** More client capabilities, merged into the defaults (`approve`, `ask`, `diffs`). */
  capabilities?: Json;
  extra?: Json;
}

/** A failed precondition: the scenario cannot go on, and what it had still to decide fails. */
export class ScenarioStop extends Error {}

export class ScenarioContext {
  readonly outcomes: Outcome[] = [];
  /** Run when the scenario is over: the watchers' verdicts. */
  readonly finalizers: Array<() => void> = [];
  readonly servers: ServerUnderTest[] = [];
  readonly home: string;
  readonly workspace: string;
  anthropic!: FakeProvider;
  openai!: FakeProvider;
  /** What the server declared in `initialize`: `capabilities.methods` and `phaseTypes`, and `sandbox` for a working one. */
  declared = new Set<string>();
  /** `capabilities.limits.maxMessageBytes` as the last server opened advertised it. */
  maxMessageBytes: number | undefined;
  readonly #relays: Relay[] = [];
  readonly #anthropicRelay: Promise<Relay>;
  readonly #openaiRelay: Promise<Relay>;
  readonly #requirements: Map<string, Requirement>;
  readonly #validator: MessageValidator;

  readonly scenario: string;
  /** What the scenario needs of the server: the protocol alone, or the Santra profile too. */
  readonly profile: Profile;
  readonly command: string[];

  constructor(
    scenario: { name: string; profile: Profile },
    command: string[],
    requirements: Map<string, Requirement>,
    validator: MessageValidator,
  ) {
    this.scenario = scenario.name;
    this.profile = scenario.profile;
    this.command = command;
    this.#requirements = requirements;
    this.#validator = validator;
    this.home = mkdtempSync(join(tmpdir(), 'santra-conformance-home-'));
    this.workspace = mkdtempSync(join(tmpdir(), 'santra-conformance-ws-'));
    this.#anthropicRelay = startFakeProvider('anthropic').then((fake) => {
      this.anthropic = fake;
      return this.#relay(fake.url);
    });
    this.#openaiRelay = startFakeProvider('openai').then((fake) => {
      this.openai = fake;
      return this.#relay(fake.url);
    });
  }

  async #relay(url: string): Promise<Relay> {
    const relay = await Relay.start(url);
    this.#relays.push(relay);
    return relay;
  }

  /** The relay in front of the Anthropic fake (every model call of a scenario goes there). */
  get anthropicRelay(): Promise<Relay> {
    return this.#anthropicRelay;
  }

  /** Scripts the model's next answers. */
  async script(...turns: FakeTurn[]): Promise<void> {
    await this.#anthropicRelay;
    this.anthropic.push(...turns);
  }

  /** Writes `content` to `path` in the workspace (or in `root`). */
  writeFile(path: string, content: string, root = this.workspace): void {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }

  /**
   * Santra's agents, tools and custom agent file (run/santra-profile.ts), for a scenario of the
   * Santra profile only: a core scenario must provoke what it checks through the protocol alone.
   */
  get santra(): SantraProfile {
    if (this.profile !== 'santra')
      throw new Error(
        `scenario "${this.scenario}" uses Santra's agents or tools but is not declared profile: 'santra'`,
      );
    return SANTRA_PROFILE;
  }

  /** A fresh server process with the documented environment: the core's, and the profile's for its scenarios. */
  async start(options: StartOptions = {}): Promise<ServerUnderTest> {
    const anthropic = await this.#anthropicRelay;
    const openai = await this.#openaiRelay;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: this.home,
      ANTHROPIC_BASE_URL: anthropic.url,
      ...(this.profile === 'santra' ? santraEnvironment(this.home) : {}),
      ...(options.noKeys === true ? {} : { ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY }),
      ...(options.openai === true ? { OPENAI_API_KEY: FAKE_OPENAI_KEY, OPENAI_BASE_URL: openai.url } : {}),
    };
    // The command runs where the suite was started, so that relative paths in it work; the
    // workspace is what initialize names.
    const server = new ServerUnderTest({ command: this.command, env, cwd: process.cwd() });
    server.note(`server ${this.servers.length + 1} started: ${this.command.join(' ')}`);
    this.servers.push(server);
    watch(this, server, this.#validator);
    return server;
  }

  /** `initialize` params for `workspace`, with the client capabilities asked for. */
  initializeParams(options: InitializeOptions = {}, workspace = this.workspace): Json {
    return {
      protocolVersion: PROTOCOL_VERSION,
      clientInfo: { name: 'santra-conformance', version: '1' },
      workspaceRoot: workspace,
      capabilities: {
        approve: options.approve ?? true,
        ask: options.ask ?? true,
        diffs: true,
        ...options.capabilities,
      },
      ...options.extra,
    };
  }

  /** Starts a server and opens the connection (`initialize`, `initialized`); stops the scenario if it fails. */
  async open(options: InitializeOptions & StartOptions = {}): Promise<ServerUnderTest> {
    const server = await this.start(options);
    const response = await server.request('initialize', this.initializeParams(options, options.workspace));
    const result = response.result as Json | undefined;
    if (result === undefined)
      throw new ScenarioStop(`initialize failed: ${JSON.stringify(response.error ?? response)}`);
    const capabilities = (result.capabilities ?? {}) as {
      methods?: unknown;
      phaseTypes?: unknown;
      limits?: { maxMessageBytes?: unknown };
      sandbox?: { available?: unknown };
    };
    const limit = capabilities.limits?.maxMessageBytes;
    this.maxMessageBytes = typeof limit === 'number' ? limit : undefined;
    for (const name of [capabilities.methods, capabilities.phaseTypes].flat())
      if (typeof name === 'string') this.declared.add(name);
    // A working OS sandbox gates the requirements of running outside it (§7.3.1).
    if (capabilities.sandbox?.available === true) this.declared.add('sandbox');
    server.notify('initialized', {});
    return server;
  }

  /** Records whether requirement `id` holds here; `detail` says what was seen. */
  check(id: string, ok: boolean, detail: string): boolean {
    const requirement = this.#requirements.get(id);
    if (requirement === undefined)
      throw new Error(`${this.scenario}: ${id} is not a requirement of the spec`);
    const gate = requirement.capability;
    const notApplicable = !ok && gate !== undefined && !this.declared.has(gate);
    this.outcomes.push({
      id,
      scenario: this.scenario,
      ok,
      detail: notApplicable ? `not applicable: the server does not declare ${gate} (${detail})` : detail,
      ...(notApplicable ? { notApplicable } : {}),
    });
    return ok;
  }

  /** Like `check`, and stops the scenario when it fails (what follows depends on it). */
  require(id: string, ok: boolean, detail: string): void {
    if (!this.check(id, ok, detail)) throw new ScenarioStop(`${id} failed, so the scenario cannot go on`);
  }

  async dispose(): Promise<void> {
    // A scenario that started no server may end before its fakes and relays are up: wait for them,
    // so that none is left open.
    await Promise.allSettled([this.#anthropicRelay, this.#openaiRelay]);
    await Promise.all(this.servers.map((server) => server.stop()));
    await Promise.all(this.#relays.map((relay) => relay.close()));
    await Promise.all([this.anthropic?.close(), this.openai?.close()]);
    for (const dir of [this.home, this.workspace]) rmSync(dir, { recursive: true, force: true });
  }
}

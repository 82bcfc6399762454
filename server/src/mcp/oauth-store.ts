/**
 * Where the OAuth sign-in of a remote MCP server is kept: one file per server URL in Santra's
 * config directory (`mcp-oauth/<host>-<hash>.json`, directory 0700, file 0600), holding the
 * client the authorization server registered (or nothing, when the config pins a client id), the
 * tokens with the time they expire, and what discovery found (so a refresh needs no round trip to
 * the `.well-known` documents).
 *
 * Keyed by URL, not by server name: two projects that name the same server differently share one
 * sign-in, and a project cannot pick up the tokens of another server by taking its name. Written
 * atomically (temp file + rename), so a second Santra reading it never sees half a file; the file
 * is read again before each refresh, so two Santras signed in to one server do not spend the same
 * refresh token twice when one of them has already refreshed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { configDir } from '../config/config-file.ts';
import { errorCode, errorMessage } from '../support/errno.ts';

/** What is kept for one server URL. Every field is optional: a sign-in fills them in turn. */
export interface StoredSignIn {
  serverUrl: string;
  /** The client registered dynamically (with its `issuer`, as the SDK stamped it). */
  client?: OAuthClientInformationMixed;
  /** The tokens as the SDK handed them over (with their `issuer`), unchanged. */
  tokens?: OAuthTokens & { issuer?: string };
  /** When the access token expires (epoch ms), from `expires_in` when it was saved. */
  expiresAt?: number;
  discovery?: OAuthDiscoveryState;
}

/** The directory of the sign-in files. */
export function signInDir(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'mcp-oauth');
}

/** The file of one server URL's sign-in: readable host first, then a hash of the whole URL. */
export function signInFile(env: NodeJS.ProcessEnv, serverUrl: string): string {
  const hash = createHash('sha256').update(serverUrl).digest('hex').slice(0, 16);
  let host = 'server';
  try {
    host = new URL(serverUrl).host.replace(/[^A-Za-z0-9.-]/g, '_');
  } catch {
    // An unparsable URL never gets this far (connect.ts refuses it); the hash still names it.
  }
  return join(signInDir(env), `${host}-${hash}.json`);
}

/** The sign-in kept for `serverUrl`, or a fresh one when none is (or the file is unreadable). */
export async function readSignIn(file: string, serverUrl: string): Promise<StoredSignIn> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { serverUrl };
    throw new Error(`cannot read the MCP sign-in file ${file}: ${errorMessage(error)}`, { cause: error });
  }
  try {
    const stored = JSON.parse(text) as StoredSignIn;
    // A file of another URL (a hash collision, a hand copy) is not used for this one.
    if (typeof stored !== 'object' || stored === null || stored.serverUrl !== serverUrl) return { serverUrl };
    return stored;
  } catch {
    // A damaged file is as good as none: the person signs in again and it is replaced.
    return { serverUrl };
  }
}

/** Replaces the file atomically; the directory is made 0700 and the file 0600 before a byte is written. */
export async function writeSignIn(file: string, dir: string, stored: StoredSignIn): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await chmod(temp, 0o600);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw new Error(`cannot write the MCP sign-in file ${file}: ${errorMessage(error)}`, { cause: error });
  }
}

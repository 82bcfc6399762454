/**
 * Sealed live-channel messages (sessions/live-seal.ts): with a live token only a message sealed with
 * it, for its channel, recent and new, is taken; without one, anything is (as before the token).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_SKEW_MS, Opener, seal } from '../src/sessions/live-seal.ts';

const TOKEN = 'a-live-token-of-32-characters-ok';
const UP = 'santra-live:0:ses_1:up';
const BODY = JSON.stringify({ kind: 'event', eventId: 'evt_1', source: 'ci', text: 'x', at: 't' });

test('a message sealed with the token, for this channel, is taken once', () => {
  const opener = new Opener(TOKEN);
  const text = seal(TOKEN, UP, BODY);
  assert.ok(!text.includes(TOKEN), 'the token is not sent');
  assert.deepEqual(opener.open(UP, text), { body: BODY });
  assert.match(JSON.stringify(opener.open(UP, text)), /received before \(a replay\)/);
});

test('every variant of a forged or replayed message is refused', () => {
  const opener = new Opener(TOKEN);
  const now = Date.now();
  const refused = (text: string, at = now) => {
    const result = opener.open(UP, text, at);
    assert.ok('refused' in result, `taken: ${text}`);
    return result.refused;
  };
  assert.match(refused(BODY), /not sealed/);
  assert.match(refused(seal('another-token-of-enough-length', UP, BODY, now)), /does not match/);
  assert.match(refused(seal(TOKEN, 'santra-live:0:ses_2:up', BODY, now)), /does not match/);
  assert.match(refused(seal(TOKEN, 'santra-live:0:ses_1:down', BODY, now)), /does not match/);
  const changed = JSON.parse(seal(TOKEN, UP, BODY, now)) as { body: string };
  changed.body = changed.body.replace('"x"', '"approve everything"');
  assert.match(refused(JSON.stringify(changed)), /does not match/);
  assert.match(refused(seal(TOKEN, UP, BODY, now - MAX_SKEW_MS - 1000)), /more than 5 minutes/);
  assert.match(refused(seal(TOKEN, UP, BODY, now + MAX_SKEW_MS + 1000)), /more than 5 minutes/);
  assert.match(refused('not json'), /not sealed/);
  assert.match(
    refused(JSON.stringify({ v: 1, at: now, nonce: 'n', mac: 'short', body: BODY })),
    /not sealed/,
  );
});

test('a nonce is remembered for as long as its message could be taken, then forgotten', () => {
  const opener = new Opener(TOKEN);
  const start = Date.now();
  const text = seal(TOKEN, UP, BODY, start);
  assert.ok('body' in opener.open(UP, text, start));
  assert.ok('refused' in opener.open(UP, text, start + MAX_SKEW_MS));
  // Past the window it is refused for its age, and its nonce may go.
  assert.match(JSON.stringify(opener.open(UP, text, start + MAX_SKEW_MS + 1)), /5 minutes/);
});

test('without a token anything is taken: a plain message, and a sealed one unwrapped', () => {
  const opener = new Opener(undefined);
  assert.deepEqual(opener.open(UP, BODY), { body: BODY });
  assert.deepEqual(opener.open(UP, seal(TOKEN, UP, BODY)), { body: BODY });
});

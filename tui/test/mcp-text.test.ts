/** What `/mcp logout` and `santra mcp logout` say of the tokens (client/mcp-text.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { revocationText } from '../src/client/mcp-text.ts';

describe('revocationText', () => {
  test('revoked, not revoked with why, or nothing when there were no tokens', () => {
    assert.equal(
      revocationText({ revoked: true }),
      ' Its authorization server revoked the tokens: they no longer work anywhere.',
    );
    assert.equal(
      revocationText({ revoked: false, why: 'revoking its refresh token failed: HTTP 401' }),
      ' Its tokens were not revoked (revoking its refresh token failed: HTTP 401): they stay valid at the server until they expire.',
    );
    assert.equal(revocationText(undefined), '');
  });

  test("the server's words reach the terminal on one line, without control characters", () => {
    const text = revocationText({ revoked: false, why: 'HTTP 400 (invalid_request:\u001b[2J\nboom)' });
    assert.doesNotMatch(text, /[\u0000-\u001f]/);
    assert.match(text, /invalid_request: \[2J boom/);
  });
});

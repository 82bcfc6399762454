import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApproveResult, InitializeParams, PromptParams } from '#protocol';
import { parseParams } from '../src/connection/params.ts';
import { negotiateVersion } from '../src/connection/version-negotiation.ts';
import { ProtocolFault } from '../src/support/protocol-fault.ts';

function faultOf(fn: () => unknown): ProtocolFault {
  try {
    fn();
  } catch (error) {
    if (error instanceof ProtocolFault) return error;
    throw error;
  }
  assert.fail('expected a ProtocolFault');
}

describe('parseParams', () => {
  test('returns the typed params when they are valid', () => {
    assert.deepEqual(parseParams('prompt', PromptParams, { text: 'hi', extra: 'ignored' }), { text: 'hi' });
  });

  test('names every offending field and what was expected', () => {
    const fault = faultOf(() =>
      parseParams('initialize', InitializeParams, {
        protocolVersion: 'one',
        clientInfo: { name: 3 },
        workspaceRoot: '/w',
        capabilities: { approve: 'yes' },
      }),
    );
    assert.equal(fault.errorName, 'InvalidParams');
    assert.equal(
      fault.message,
      'Invalid params for initialize: params.protocolVersion: expected a protocol version MAJOR.MINOR.PATCH, e.g. "0.1.0"; ' +
        'params.clientInfo.name: expected string, received number; params.capabilities.approve: expected boolean, received string',
    );
    assert.deepEqual(
      (fault.data.issues as Array<{ path: string }>).map((issue) => issue.path),
      ['params.protocolVersion', 'params.clientInfo.name', 'params.capabilities.approve'],
    );
  });

  test('says a missing field is required', () => {
    const fault = faultOf(() => parseParams('prompt', PromptParams, {}));
    assert.equal(fault.message, 'Invalid params for prompt: params.text is required (expected string)');
  });

  test('reports params that are not an object', () => {
    const fault = faultOf(() => parseParams('prompt', PromptParams, ['hi']));
    assert.match(fault.message, /params: expected object, received array/);
  });

  test('reports an unknown discriminator with the allowed values', () => {
    const fault = faultOf(() => parseParams('approve', ApproveResult, { decision: 'maybe' }));
    assert.match(fault.message, /params\.decision: .*'allow' \| 'allow_all' \| 'reject' \| 'feedback'/);
  });
});

describe('negotiateVersion', () => {
  test('accepts the same MAJOR.MINOR, whatever the PATCH', () => {
    assert.equal(negotiateVersion('0.1.0', ['0.1.0']), '0.1.0');
    assert.equal(negotiateVersion('0.1.7', ['0.1.0', '0.1.2']), '0.1.2');
    assert.equal(negotiateVersion('1.3.0', ['0.1.0', '1.3.1', '2.0.0']), '1.3.1');
  });

  test('refuses another MAJOR or MINOR and lists the supported versions', () => {
    for (const requested of ['0.2.0', '1.1.0', '9.0.0']) {
      const fault = faultOf(() => negotiateVersion(requested, ['0.1.0', '1.0.0']));
      assert.equal(fault.errorName, 'UnsupportedProtocolVersion');
      assert.deepEqual(fault.data, { supported: ['0.1.0', '1.0.0'], requested });
      assert.match(
        fault.message,
        new RegExp(`Unsupported protocol version ${requested.replaceAll('.', '\\.')}`),
      );
    }
  });
});

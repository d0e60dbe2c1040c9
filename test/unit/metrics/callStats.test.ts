/**
 * The call accumulators and the histogram exposed from them: bucket placement (upper bounds
 * inclusive), outcomes, the text exposition through a prom-client registry, and the snapshots
 * threads hand over and their sums.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { CallHistogram } from '#src/metrics/callHistogram.js';
import { CallStats, CallStatsTable, StatusCounts } from '#src/metrics/callStats.js';
import { CALL_OK } from '#src/rpc/observe.js';

test('a call lands in the first bucket whose bound it does not exceed; outcomes are counted apart', () => {
  const stats = new CallStats([0.001, 0.01]);
  stats.record(CALL_OK, 0.001);
  stats.record(CALL_OK, 0.005);
  stats.record(-32602, 0.5);
  stats.record(-32602, 0);
  assert.deepEqual([...stats.buckets], [2, 1, 1]);
  assert.equal(stats.ok, 2);
  assert.deepEqual([...stats.errors], [[-32602, 2]]);
  assert.equal(stats.count, 4);
  assert.ok(Math.abs(stats.sum - 0.506) < 1e-12);
});

test('the table starts declared methods at zero and adds others on their first call', () => {
  const table = new CallStatsTable([1], ['eth_chainId']);
  assert.equal(table.byMethod.get('eth_chainId')!.count, 0);
  table.onCall('unknown', -32601, 0.1);
  assert.deepEqual([...table.byMethod.keys()], ['eth_chainId', 'unknown']);
});

test('the histogram renders cumulative buckets, +Inf, _sum and _count per method', async () => {
  const registry = new Registry();
  const table = new CallStatsTable([0.001, 0.01], ['eth_chainId']);
  new CallHistogram('calls_seconds', 'help text', table, registry);
  table.onCall('eth_chainId', CALL_OK, 0.0005);
  table.onCall('eth_chainId', CALL_OK, 0.002);
  table.onCall('eth_chainId', CALL_OK, 3);
  const text = await registry.metrics();
  assert.equal(
    text,
    [
      '# HELP calls_seconds help text',
      '# TYPE calls_seconds histogram',
      'calls_seconds_bucket{method="eth_chainId",le="0.001"} 1',
      'calls_seconds_bucket{method="eth_chainId",le="0.01"} 2',
      'calls_seconds_bucket{method="eth_chainId",le="+Inf"} 3',
      'calls_seconds_sum{method="eth_chainId"} 3.0025',
      'calls_seconds_count{method="eth_chainId"} 3',
      '',
    ].join('\n'),
  );
});

test('snapshots are plain data; adding them sums each label, cleared tables keep their labels at zero', () => {
  const a = new CallStatsTable([0.001], ['eth_chainId']);
  const b = new CallStatsTable([0.001]);
  a.onCall('eth_chainId', CALL_OK, 0.0005);
  a.onCall('eth_chainId', -32602, 0.5);
  b.onCall('eth_chainId', -32602, 0.0001);
  b.onCall('unknown', -32601, 0.002);
  const snapshot = structuredClone(b.snapshot());
  const sum = new CallStatsTable([0.001], ['eth_chainId']);
  sum.add(a.snapshot());
  sum.add(snapshot);
  const chainId = sum.byMethod.get('eth_chainId')!;
  assert.deepEqual(
    [chainId.ok, [...chainId.errors], [...chainId.buckets], chainId.count],
    [1, [[-32602, 2]], [2, 1], 3],
  );
  assert.ok(Math.abs(chainId.sum - 0.5006) < 1e-12);
  assert.deepEqual([...sum.byMethod.keys()], ['eth_chainId', 'unknown']);
  sum.clear();
  assert.deepEqual([...sum.byMethod.keys()], ['eth_chainId', 'unknown']);
  assert.deepEqual(sum.byMethod.get('unknown')!.snapshot(), { ok: 0, errors: [], buckets: [0, 0], sum: 0, count: 0 });

  const statuses = new StatusCounts();
  statuses.add(200);
  statuses.add(200, 4);
  statuses.add(401);
  assert.deepEqual(structuredClone(statuses.snapshot()), [
    [200, 5],
    [401, 1],
  ]);
  assert.equal(statuses.total, 6);
  statuses.clear();
  assert.equal(statuses.total, 0);
});

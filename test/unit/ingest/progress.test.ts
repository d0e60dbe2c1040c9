import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Progress } from '#src/ingest/progress.js';

function fakeStream(isTTY: boolean): { stream: NodeJS.WriteStream; written: string[] } {
  const written: string[] = [];
  const stream = { isTTY, write: (s: string) => written.push(s) > 0 } as unknown as NodeJS.WriteStream;
  return { stream, written };
}

test(
  'on a terminal the bar is redrawn in place and finish ' + 'clears it, printing no summary (the command prints one)',
  () => {
    const { stream, written } = fakeStream(true);
    const p = new Progress(100, { enabled: true, stream, label: 'generate' });
    p.update({ blocks: 50, txs: 500, logs: 1000 });
    assert.equal(written.length, 1);
    assert.match(written[0]!, /^\rgenerate \[#+\.+\] {2}50\.0% {2}.* blocks\/s {2}.* logs\/s {2}ETA /);
    p.update({ blocks: 51, txs: 510, logs: 1020 });
    assert.equal(written.length, 1, 'redraws are throttled');
    assert.ok(p.finish() >= 0);
    assert.deepEqual(written.slice(1), ['\r\u001b[K']);
  },
);

test('elsewhere plain lines are printed every few seconds, and finish prints nothing', () => {
  const { stream, written } = fakeStream(false);
  const p = new Progress(10, { enabled: true, stream, label: 'ingest', intervalSeconds: 3600 });
  p.update({ blocks: 1, txs: 1, logs: 1 });
  p.update({ blocks: 2, txs: 2, logs: 2 });
  assert.deepEqual(written.length, 1);
  assert.match(written[0]!, /^ingest: 1\/10 blocks\s+10\.0%/);
  assert.ok(written[0]!.endsWith('\n') && !written[0]!.includes('\r'));
  p.finish();
  assert.equal(written.length, 1);
});

test('a disabled reporter prints nothing but still times', () => {
  const { stream, written } = fakeStream(true);
  const p = new Progress(10, { enabled: false, stream });
  p.update({ blocks: 10, txs: 1, logs: 1 });
  assert.ok(p.finish() >= 0);
  assert.deepEqual(written, []);
});

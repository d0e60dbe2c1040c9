/**
 * ChainPlanner: what a block inherits follows the fee rules from its parent's plan (EIP-1559 base
 * fee, EIP-4844 excess blob gas), the gas used covers its transactions and stays within the limit,
 * nonces count each sender's transactions, and peek and skipTo agree with next.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GAS_PER_BLOB, nextBaseFee, nextExcessBlobGas } from '#src/synth/fees.js';
import { FORK_SCHEDULE } from '#src/synth/forks.js';
import { type BlockPlan, ChainPlanner, INTRINSIC_GAS, plainKind, TX_KIND } from '#src/synth/plan.js';
import { Universe } from '#src/synth/universe.js';

const u = new Universe('plan');
const planner = () => new ChainPlanner(u, 'plan', 1, 0);
const plans: BlockPlan[] = [];
const p = planner();
for (let i = 0; i < 120; i++) plans.push(p.next());

const parentOf = (q: BlockPlan) => ({
  baseFeePerGas: q.baseFee,
  gasLimit: q.gasLimit,
  gasUsed: BigInt(q.gasUsed),
  excessBlobGas: q.blobParams ? q.excessBlobGas : undefined,
  blobGasUsed: q.blobParams ? q.blobGasUsed : undefined,
});

test('base fee and excess blob gas follow from the parent plan; blob gas is the blobs planned', () => {
  let blobs = 0;
  plans.forEach((plan, i) => {
    assert.equal(plan.number, i);
    if (i > 0) assert.equal(plan.baseFee, nextBaseFee(parentOf(plans[i - 1]!)), `base fee of ${i}`);
    if (plan.blobParams)
      assert.equal(
        plan.excessBlobGas,
        nextExcessBlobGas(i > 0 ? parentOf(plans[i - 1]!) : undefined, plan.blobParams),
        `excess of ${i}`,
      );
    assert.equal(plan.blobParams !== undefined, i >= FORK_SCHEDULE.cancun);
    let planned = 0;
    plan.kinds.forEach((kind, t) => {
      if (kind === TX_KIND.blob) assert.ok(plan.blobs[t]! >= 1 && plan.blobs[t]! <= 6);
      else assert.equal(plan.blobs[t], 0);
      if (kind === TX_KIND.setCode) assert.ok(i >= FORK_SCHEDULE.prague);
      planned += plan.blobs[t]!;
    });
    assert.ok(plan.blobParams === undefined || planned <= plan.blobParams.max);
    assert.equal(plan.blobGasUsed, BigInt(planned) * GAS_PER_BLOB);
    blobs += planned;
  });
  assert.ok(blobs > 0, 'blobs are planned');
});

test('gas used covers every transaction, more for calls, within the limit; nonces count per sender', () => {
  const nonces = new Map<number, number>();
  for (const plan of plans) {
    const calls = [...plan.kinds].filter((k) => !plainKind(k)).length;
    const count = plan.kinds.length;
    assert.ok(plan.gasUsed >= INTRINSIC_GAS * count + (calls > 0 ? 1 : 0), `block ${plan.number}`);
    if (calls === 0) assert.equal(plan.gasUsed, INTRINSIC_GAS * count);
    assert.ok(BigInt(plan.gasUsed) <= plan.gasLimit);
    plan.senders.forEach((sender, t) => {
      assert.equal(plan.nonces[t], nonces.get(sender) ?? 0);
      nonces.set(sender, plan.nonces[t]! + 1);
    });
  }
});

test('peek gives the next plan without moving; skipTo gives the same plans as next', () => {
  const a = planner();
  a.skipTo(50);
  const peeked = a.peek();
  assert.equal(a.nextNumber, 50);
  assert.deepEqual(peeked, plans[50]);
  assert.deepEqual(a.next(), plans[50]);
  assert.deepEqual(a.next(), plans[51]);
  assert.throws(() => a.skipTo(10), RangeError);
});

/**
 * A generating thread (blockThreads.ts starts them): it folds the chain's plans in order and
 * builds, encodes and packs the blocks of the batches it is asked for, each block as soon as it is
 * built, handing each batch back as one transferred buffer (recordBatch.ts, BlockPacker). It counts
 * the logs of what it built for the busiest-contracts summary and hands the counts over when asked.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { FromBlockThread, ToBlockThread } from './blockThreadProtocol.js';
import { BlockBuilder, type GeneratorOptions } from './generator.js';
import { LogTally } from './logTally.js';
import { BlockPacker, packPending } from './recordBatch.js';

const port = parentPort!;
const builder = new BlockBuilder(workerData as GeneratorOptions);
const planner = builder.planner();
const tally = new LogTally();

function reply(message: FromBlockThread, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
}

port.on('message', (message: ToBlockThread) => {
  if (message.kind === 'tally') return reply({ id: message.id, kind: 'tally', counts: tally.counts() });
  planner.skipTo(message.from);
  if (message.kind === 'pending') {
    const bytes = packPending(builder.build(planner.peek()));
    return reply({ id: message.id, kind: 'pending', bytes }, [bytes.buffer as ArrayBuffer]);
  }
  const packer = new BlockPacker(message.to - message.from + 1, builder.opts.density);
  let txs = 0;
  while (planner.nextNumber <= message.to) {
    const block = builder.build(planner.next());
    if (block.header.number >= message.tallyFrom) tally.add(block.logs);
    txs += block.transactions.length;
    packer.add(block);
  }
  const bytes = packer.finish();
  reply({ id: message.id, kind: 'blocks', bytes, txs }, [bytes.buffer as ArrayBuffer]);
});

import { generateChain, describeDataset } from './dist/src/ingest/generator.js';
import { logsBloom } from './dist/src/chain/bloom.js';
const opts = { blocks: 300, seed: 'smoke', density: 1 };
let t = performance.now(); let logs = 0, txs = 0; const types = [0,0,0,0,0]; const perAddr = new Map(); let blocksWithRare = 0;
const d = describeDataset(opts); const rareHex = Buffer.from(d.rareAddress).toString('hex');
let last; let storage = 0;
for (const b of generateChain(opts)) { logs += b.logs.length; txs += b.transactions.length; storage += b.storage.length; for (const tx of b.transactions) types[tx.type]++; 
  let rare = false; for (const l of b.logs) { const k = Buffer.from(l.address).toString('hex'); perAddr.set(k, (perAddr.get(k) ?? 0) + 1); if (k === rareHex) rare = true; } if (rare) blocksWithRare++; last = b; }
const dt = (performance.now() - t) / 1000;
console.log({ dt, blocksPerS: 300 / dt, logsPerS: logs / dt, logsPerBlock: logs / 300, txPerBlock: txs / 300, storagePerBlock: storage/300, types, blocksWithRare });
const counts = [...perAddr.values()].sort((a, b) => b - a); const top = Math.ceil(counts.length * 0.01); console.log('distinct', counts.length, 'top1% share', counts.slice(0, top).reduce((a, b) => a + b, 0) / logs);
const h = last.header; console.log({ gasUsed: h.gasUsed, gasLimit: h.gasLimit, baseFee: h.baseFeePerGas, blobGasUsed: h.blobGasUsed, excess: h.excessBlobGas, size: h.size, bloomOk: Buffer.compare(logsBloom(last.logs), h.logsBloom) === 0 });

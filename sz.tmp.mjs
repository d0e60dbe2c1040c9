import { generateChain } from './dist/src/ingest/generator.js';
import { encodeTx, encodeHeader } from './dist/src/store/codec.js';
import { encodeLogs } from './dist/src/store/logsRecord.js';
let tx = 0, txb = 0, inp = 0, logsb = 0, logs = 0, hb = 0, st = 0; const byType = {};
for (const b of generateChain({ blocks: 100, seed: 'sz', density: 1 })) { for (const t of b.transactions) { tx++; txb += encodeTx(t).length; inp += t.input.length; } logs += b.logs.length; logsb += encodeLogs(b.logs).length; hb += encodeHeader(b.header).length; st += b.storage.length; }
console.log({ txRecord: txb / tx, input: inp / tx, logBytesPerLog: logsb / logs, headerPerBlock: hb / 100, txPerLog: txb / logs, storagePerBlock: st / 100 });

import { open } from 'lmdb';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
const N = 600000;
for (const len of [8, 32, 60]) {
  const keys = Array.from({ length: N }, () => randomBytes(len)).sort(Buffer.compare);
  const val = Buffer.alloc(12, 1);
  const dir = mkdtempSync('/tmp/s7/put-');
  const env = open({ path: dir, maxDbs: 4, compression: false });
  const db = env.openDB({ name: 'x', keyEncoding: 'binary', encoding: 'binary' });
  let c = process.cpuUsage();
  env.transactionSync(() => { for (const k of keys) db.put(k, val); });
  let u = process.cpuUsage(c);
  const second = Array.from({ length: N }, () => randomBytes(len)).sort(Buffer.compare);
  c = process.cpuUsage();
  env.transactionSync(() => { for (const k of second) db.put(k, val); });
  const u2 = process.cpuUsage(c);
  // a loop doing only the JS key-copy work for comparison
  console.log(`key ${len}: empty tree ${((u.user+u.system)/N).toFixed(2)} us/put; into 600k-key tree ${((u2.user+u2.system)/N).toFixed(2)} us/put`);
  await env.close(); rmSync(dir, { recursive: true });
}

import { open } from 'lmdb';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
const N = 600000;
const keys = Array.from({ length: N }, () => randomBytes(32)).sort(Buffer.compare);
const val = Buffer.alloc(12, 1);
async function run(label, fn) {
  const dir = mkdtempSync('/tmp/s7/put-');
  const env = open({ path: dir, maxDbs: 4, compression: false, useWritemap: process.env.WM === '1' });
  const db = env.openDB({ name: 'x', keyEncoding: 'binary', encoding: 'binary' });
  const c = process.cpuUsage(); const t = performance.now();
  await fn(env, db);
  const ms = performance.now() - t; const u = process.cpuUsage(c);
  console.log(label, (ms * 1000 / N).toFixed(2), 'us/put wall', ((u.user + u.system) / N).toFixed(2), 'us/put cpu(all threads)');
  await env.close(); rmSync(dir, { recursive: true });
}
await run('txnSync put     ', (env, db) => env.transactionSync(() => { for (const k of keys) db.put(k, val); }));
await run('txnSync putSync ', (env, db) => env.transactionSync(() => { for (const k of keys) db.putSync(k, val); }));
await run('async put batch ', async (env, db) => { let p; for (const k of keys) p = db.put(k, val); await p; });
await run('txnSync empty fn', (env, db) => env.transactionSync(() => { for (const k of keys) db.put(k, val); }));

import { open } from 'lmdb';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
const N = 600000;
const keys = Array.from({ length: N }, () => randomBytes(32)).sort(Buffer.compare);
const val = Buffer.alloc(12, 1);
for (let r = 0; r < 2; r++) for (const mode of ['put', 'putSync', 'append']) {
  const dir = mkdtempSync('/tmp/s7/put-');
  const env = open({ path: dir, maxDbs: 4, compression: false });
  const db = env.openDB({ name: 'x', keyEncoding: 'binary', encoding: 'binary' });
  const c = process.cpuUsage();
  env.transactionSync(() => {
    if (mode === 'put') for (const k of keys) db.put(k, val);
    else if (mode === 'putSync') for (const k of keys) db.putSync(k, val);
    else for (const k of keys) db.putSync(k, val, { append: true });
  });
  const u = process.cpuUsage(c);
  console.log(mode.padEnd(8), ((u.user + u.system) / N).toFixed(2), 'us/put cpu', (db.getStats().treeLeafPageCount));
  await env.close(); rmSync(dir, { recursive: true });
}

import { generateStore } from './dist/src/ingest/generateStore.js';
import { openStore, closeStore } from './dist/src/store/schema.js';
import fs from 'fs'; import os from 'os'; import path from 'path';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gen-'));
const r = await generateStore(dir, { blocks: 300, seed: 'bench', density: 1 });
const s = openStore(dir, { readOnly: true });
for (const name of ['headers','blockByHash','txs','txByHash','logs','storage','meta']) { const st = s[name].getStats(); console.log(name, st.entryCount, 'pages', st.treeBranchPageCount + st.treeLeafPageCount + st.overflowPages, 'bytes', (st.treeBranchPageCount + st.treeLeafPageCount + st.overflowPages) * st.pageSize, 'per log', ((st.treeBranchPageCount + st.treeLeafPageCount + st.overflowPages) * st.pageSize / r.logs).toFixed(1)); }
console.log(s.env.getStats());
await closeStore(s);
fs.rmSync(dir, { recursive: true });

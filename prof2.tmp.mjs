import { generateStore } from './dist/src/ingest/generateStore.js';
import fs from 'fs'; import os from 'os'; import path from 'path';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gen-'));
const r = await generateStore(dir, { blocks: 400, seed: 'bench', density: 1 });
console.log(r);
fs.rmSync(dir, { recursive: true });

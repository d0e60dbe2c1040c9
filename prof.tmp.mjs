import { generateChain } from './dist/src/ingest/generator.js';
let n = 0; for (const b of generateChain({ blocks: 400, seed: 'prof', density: 1 })) n += b.logs.length;
console.log(n);

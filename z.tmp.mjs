import { generateChain } from './dist/src/ingest/generator.js';
for (const [blocks, density] of [[20, 1], [100, 0.5], [300, 1]]) {
  const counts = new Map(); let total = 0;
  for (const b of generateChain({ blocks, seed: 'zipf', density })) for (const l of b.logs) { const k = Buffer.from(l.address).toString('hex'); counts.set(k, (counts.get(k) ?? 0) + 1); total++; }
  const s = [...counts.values()].sort((a, b) => b - a); const top = s.slice(0, Math.ceil(s.length / 100)).reduce((a, b) => a + b, 0);
  console.log(blocks, density, 'distinct', s.length, 'top1%', Math.ceil(s.length/100), (top / total).toFixed(3), 'top 85:', (s.slice(0,85).reduce((a,b)=>a+b,0)/total).toFixed(3));
}

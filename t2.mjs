import run from './dist/src/export/worker.js';
for (let i = 0; i < 4; i++) {
  const t = performance.now();
  const r = run({ dataDir: 'data/bench-quick', kind: 'logs', from: 1000*i, to: 1000*i+999, addresses: [], topics: [], hex: false, compression: 'zstd', chainId: 1n });
  const v = Object.getOwnPropertySymbols(r).map(s=>r[s]).find(x=>x && x.ok!==undefined);
  console.log(v.rows, (performance.now()-t).toFixed(0), 'ms', Math.round(v.rows/((performance.now()-t)/1000)), 'rows/s');
}

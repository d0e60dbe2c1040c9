/**
 * Exporting to Parquet and querying the files with DuckDB (the example of docs/export.md, "From a
 * program"): export a store's logs with EthLogStore.export, then count each contract's Transfer
 * events over every file with one SQL query. It compiles with the project and
 * test/integration/readme.test.ts runs it, so it cannot rot.
 *
 *   node dist/test/examples/exportQuery.js data/default parquet
 */
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { EthLogStore } from 'ethlogd';

/** keccak256("Transfer(address,address,uint256)"): topic0 of ERC-20 and ERC-721 transfers. */
const TRANSFER = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/**
 * Exports the logs of the store in `dir` into `out` and prints the three contracts with the most transfers; resolves
 * with their rows.
 */
export async function main(
  dir: string,
  out: string,
  print: (line: string) => void = console.log,
): Promise<[string, bigint][]> {
  const store = EthLogStore.open(dir);
  // Files of 100 blocks; a second run skips the files already there.
  const summary = await store.export('logs', { out, chunkBlocks: 100, compression: 'zstd' });
  await store.close();
  print(`${summary.written.length} files written, ${summary.skipped.length} already there, ${summary.rows} logs`);

  const db = await (await DuckDBInstance.create(':memory:')).connect();
  const result = await db.runAndReadAll(`
    SELECT '0x' || lower(hex(address)) AS contract, count(*) AS transfers
    FROM read_parquet('${out}/*__logs__*.parquet')
    WHERE topic0 = from_hex('${TRANSFER}')
    GROUP BY address ORDER BY transfers DESC, contract LIMIT 3`);
  const rows = result.getRows() as [string, bigint][];
  for (const [contract, transfers] of rows) print(`${contract} ${transfers} transfers`);
  db.closeSync();
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await main(process.argv[2] ?? 'data/default', process.argv[3] ?? 'parquet');

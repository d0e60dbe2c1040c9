/**
 * What generate prints after its summary so a new user can query something that exists: the
 * contracts with the most logs in the blocks it generated, the commonest topic0s of the first, and
 * a ready eth_getLogs curl line for that contract and topic over recent blocks.
 */
import { bytesToHex, quantityToHex } from '../chain/hex.js';
import type { GenerateStoreResult } from '../synth/generateStore.js';

/**
 * About how many logs the example eth_getLogs should return: a tenth of the 10,000-result cap, so
 * it answers even where the last blocks are busier than the average, and its answer stays readable.
 */
const EXAMPLE_LOGS = 1_000;

/** The endpoint the example names; `make run` and `ethlogd serve` print the real one, with a key. */
const EXAMPLE_ENDPOINT = 'http://127.0.0.1:8545/v3/<API_KEY>';

/**
 * The lines naming the busiest contracts of `result`'s generated blocks and an eth_getLogs example for the first (none
 * when it generated no log).
 */
export function busiestHint(result: GenerateStoreResult): string[] {
  const [top, ...rest] = result.busiest;
  if (!top) return [];
  const from = result.head - result.blocks + 1;
  const topics = top.topics.map((t) => `${bytesToHex(t.topic0)} ${t.logs}`).join(', ');
  const lines = [
    `busiest contracts, by logs in blocks ${from}–${result.head}:`,
    `  ${bytesToHex(top.address)}  ${top.logs}${topics ? `, topic0 ${topics}` : ''}`,
    ...rest.map((c) => `  ${bytesToHex(c.address)}  ${c.logs}`),
  ];
  const topic = top.topics[0];
  const perBlock = (topic?.logs ?? top.logs) / result.blocks;
  const span = Math.max(1, Math.min(result.blocks, Math.floor(EXAMPLE_LOGS / perBlock)));
  const filter = {
    fromBlock: quantityToHex(result.head - span + 1),
    toBlock: quantityToHex(result.head),
    address: bytesToHex(top.address),
    ...(topic ? { topics: [bytesToHex(topic.topic0)] } : {}),
  };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [filter] });
  lines.push(
    `its ${topic ? 'commonest event' : 'logs'} in the last ${span} blocks (about ${Math.round(span * perBlock)} logs):`,
    `  curl -s -H 'Content-Type: application/json' -d '${body}' ${EXAMPLE_ENDPOINT}`,
  );
  return lines;
}

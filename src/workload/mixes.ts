/**
 * Mixes: how often each shape comes in a workload, modelled on real clients (an indexer's realtime
 * loop, a backfill's ranged eth_getLogs, a wallet's or explorer's lookups), every shape at once, or
 * a JSON file of the user's own ({"shape": weight, ...}); and the drawing of a reproducible corpus.
 */
import { readFileSync } from 'node:fs';
import { Random } from '../synth/random.js';
import type { StoreSample } from './corpus.js';
import { type Call, rpcBody, SHAPES } from './shapes.js';

/** Weights by shape name. */
export type Mix = Record<string, number>;

/** The named mixes. */
export const MIXES: Record<string, Mix> = {
  /** An indexer following the head: polls the head, reads each new block, its logs and receipts. */
  realtime: {
    eth_blockNumber: 30,
    block_latest: 10,
    recent_block: 15,
    recent_logs_block_hash: 15,
    recent_logs_address: 10,
    recent_logs_pair: 10,
    recent_block_receipts: 5,
    batch: 5,
  },
  /** An indexer catching up: ranged eth_getLogs over the history, with the blocks and receipts around them. */
  backfill: {
    logs_range: 25,
    logs_busy_address: 25,
    logs_rare_address: 15,
    logs_topic: 10,
    logs_pair_range: 10,
    block_by_number: 5,
    block_receipts: 5,
    eth_blockNumber: 5,
  },
  /** A wallet or block explorer: transactions, receipts, blocks and balances-like storage reads, some batched. */
  explorer: {
    tx_by_hash: 20,
    receipt: 20,
    storage: 15,
    block_by_hash: 10,
    block_by_number: 10,
    block_by_number_full: 5,
    tx_by_block_index: 5,
    logs_block_hash: 5,
    block_latest: 5,
    batch: 5,
  },
  /** Every shape alike: to check a server answers them all. */
  all: Object.fromEntries(SHAPES.map((s) => [s.name, 1])),
};

/** A mix the user got wrong: the message says what. */
export class MixError extends Error {}

/** The mix `name` names: a named mix, or the path of a JSON file of weights by shape. */
export function resolveMix(name: string): Mix {
  if (Object.hasOwn(MIXES, name)) return MIXES[name]!;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(name, 'utf8'));
  } catch (error) {
    const names = Object.keys(MIXES).join(', ');
    throw new MixError(`--mix must be ${names} or a JSON file of weights by shape: ${(error as Error).message}`);
  }
  return checkMix(parsed, name);
}

/** Checks a mix read from `where`: an object of known shapes to non-negative weights, one of them positive. */
export function checkMix(value: unknown, where: string): Mix {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new MixError(`${where} must hold a JSON object of weights by shape`);
  }
  const known = new Set(SHAPES.map((s) => s.name));
  for (const [shape, weight] of Object.entries(value)) {
    if (!known.has(shape)) throw new MixError(`${where}: unknown shape "${shape}" (shapes: ${[...known].join(', ')})`);
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
      throw new MixError(`${where}: the weight of "${shape}" must be a non-negative number`);
    }
  }
  if (!Object.values(value).some((w) => (w as number) > 0)) {
    throw new MixError(`${where}: give at least one shape a positive weight`);
  }
  return value as Mix;
}

/** One request of a corpus: its shape and its JSON-RPC body (a call or a batch). */
export interface WorkloadRequest {
  shape: string;
  body: unknown;
}

/** A drawn corpus, and the shapes of the mix the store had nothing for (left out). */
export interface Corpus {
  requests: WorkloadRequest[];
  missing: string[];
}

/** Draws tried for a body not drawn before before a repeat is taken (a small store has few distinct requests). */
const DISTINCT_TRIES = 8;

/**
 * Draws `count` requests of `mix` from `sample`, reproducibly for a seed: shapes by weight, bodies
 * distinct where the store allows.
 */
export function drawCorpus(sample: StoreSample, mix: Mix, count: number, seed: string): Corpus {
  const random = Random.derive(seed, 'workload-corpus');
  const missing: string[] = [];
  const shapes = SHAPES.filter((s) => (mix[s.name] ?? 0) > 0).filter((s) => {
    const probe = s.draw(Random.derive(seed, 'workload-probe'), sample);
    if (probe === undefined) missing.push(s.name);
    return probe !== undefined;
  });
  if (shapes.length === 0) return { requests: [], missing };
  const total = shapes.reduce((sum, s) => sum + mix[s.name]!, 0);
  const seen = new Set<string>();
  const requests: WorkloadRequest[] = [];
  for (let i = 0; i < count; i++) {
    let at = random.float() * total;
    const shape = shapes.find((s) => (at -= mix[s.name]!) < 0) ?? shapes[shapes.length - 1]!;
    let drawn: Call | Call[] | undefined;
    for (let tries = 0; tries < DISTINCT_TRIES; tries++) {
      drawn = shape.draw(random, sample);
      if (drawn !== undefined && !seen.has(JSON.stringify(drawn))) break;
    }
    seen.add(JSON.stringify(drawn));
    requests.push({ shape: shape.name, body: rpcBody(drawn!, i + 1) });
  }
  return { requests, missing };
}

/** The corpus as JSONL: one {"shape", "body"} object a line. */
export function corpusJsonl(requests: WorkloadRequest[]): string {
  return requests.map((r) => `${JSON.stringify(r)}\n`).join('');
}

/** Reads a JSONL corpus; throws with the line number on a malformed line. */
export function parseCorpus(text: string, where: string): WorkloadRequest[] {
  const requests: WorkloadRequest[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new MixError(`${where}:${i + 1}: ${(error as Error).message}`);
    }
    const r = value as Partial<WorkloadRequest>;
    if (
      typeof r !== 'object' ||
      r === null ||
      typeof r.shape !== 'string' ||
      typeof r.body !== 'object' ||
      r.body === null
    ) {
      throw new MixError(`${where}:${i + 1}: each line must be {"shape": NAME, "body": JSON-RPC request or batch}`);
    }
    requests.push({ shape: r.shape, body: r.body });
  });
  if (requests.length === 0) throw new MixError(`${where} holds no request`);
  return requests;
}

/**
 * Blocks built in a generating thread, handed to the writer's thread as encoded records packed in
 * one transferable buffer (a block object would cost more to clone than to build), and linked
 * there in chain order: the one step of a block that needs its parent, the parent hash, written
 * into its header record and header RLP, and its hash, keccak256 of that RLP, written into the
 * record. A batch holds per block, one after the other, its records (store/blockRecords.ts), its
 * header RLP with a zero parent hash and its log count; the pending block is packed as
 * encodeBundle writes it, with its header RLP.
 */

import { encodeHeaderRlp } from '../chain/headerEncoding.js';
import { keccak256 } from '../chain/keccak.js';
import type { BlockBundle } from '../chain/types.js';
import {
  type BlockRecords,
  RECORD_BYTES_PER_TX_HINT,
  readBlockRecords,
  writeBlockRecords,
} from '../store/blockRecords.js';
import { ByteReader, ByteWriter } from '../store/bytes.js';
import { encodeBundle } from '../store/codec.js';
import { storedBlockHash, storedParentHash } from '../store/recordViews.js';
import { TXS_PER_BLOCK } from './plan.js';

/**
 * Room of a batch's buffer per block besides its transactions' records (its header record and RLP, receipts and logs
 * framing): with RECORD_BYTES_PER_TX_HINT a transaction, sized so the buffer rarely grows (each growth copies it).
 */
const BYTES_PER_BLOCK_HINT = 8 * 1024;
/** RLP's first byte of a string of 32 bytes: the parent hash field at the front of the header list. */
const HASH_STRING_PREFIX = 0xa0;

/** One block of a batch, unpacked: its records (views into the batch's buffer) and what linking it needs. */
export interface UnlinkedBlock {
  records: BlockRecords;
  headerRlp: Buffer;
  logCount: number;
}

/**
 * Packs unlinked blocks (parent hash and hash zero) one at a time as they are built, into bytes
 * whose ArrayBuffer holds nothing else, to transfer. A block is encoded as soon as it is added, so
 * that its objects die young: a batch of 64 mainnet-density blocks kept as objects until packed
 * outlived the young generation's collections and cost its thread about a fifth more CPU.
 */
export class BlockPacker {
  private readonly w: ByteWriter;

  /**
   * Makes room for `blocks` blocks of a chain of `density`, of a mean number of transactions (a batch's sum strays
   * little from it).
   */
  constructor(blocks: number, density: number) {
    this.w = new ByteWriter(
      Math.max(1, Math.ceil(blocks * (BYTES_PER_BLOCK_HINT + density * TXS_PER_BLOCK * RECORD_BYTES_PER_TX_HINT))),
    );
  }

  /** Packs the next block. */
  add(block: BlockBundle): void {
    writeBlockRecords(this.w, block);
    this.w.bytes(encodeHeaderRlp(block.header)).varint(block.logs.length);
  }

  /** The packed blocks (add nothing more). */
  finish(): Uint8Array {
    return owned(this.w);
  }
}

/** Unpacks bytes a BlockPacker made. */
export function unpackBlocks(bytes: Uint8Array): UnlinkedBlock[] {
  const r = new ByteReader(bytes);
  const blocks: UnlinkedBlock[] = [];
  while (!r.done()) {
    const records = readBlockRecords(r);
    blocks.push({ records, headerRlp: r.viewBytes(), logCount: r.varint() });
  }
  return blocks;
}

/** Packs an unlinked pending block: its encodeBundle bytes, then its header RLP. */
export function packPending(block: BlockBundle): Uint8Array {
  const w = new ByteWriter(BYTES_PER_BLOCK_HINT);
  w.bytes(encodeBundle(block)).bytes(encodeHeaderRlp(block.header));
  return owned(w);
}

/** Unpacks and links a pending block packPending made: its encodeBundle bytes, linked to `parentHash`. */
export function linkPending(bytes: Uint8Array, parentHash: Uint8Array): Buffer {
  const r = new ByteReader(bytes);
  const bundle = r.viewBytes();
  const headerRlp = r.viewBytes();
  linkHeader(new ByteReader(bundle).viewBytes(), headerRlp, parentHash);
  return bundle;
}

/**
 * Links a block's records to its parent: writes `parentHash` into its header record and RLP, and its hash into the
 * record; returns the hash.
 */
export function linkRecords(block: UnlinkedBlock, parentHash: Uint8Array): Uint8Array {
  return linkHeader(block.records.header, block.headerRlp, parentHash);
}

function linkHeader(record: Uint8Array, headerRlp: Uint8Array, parentHash: Uint8Array): Uint8Array {
  const first = headerRlp[0]!;
  const at = (first > 0xf7 ? 1 + first - 0xf7 : 1) + 1;
  if (headerRlp[at - 1] !== HASH_STRING_PREFIX) throw new RangeError('a header RLP without the parent hash first');
  headerRlp.set(parentHash, at);
  const hash = keccak256(headerRlp);
  storedParentHash(record).set(parentHash);
  storedBlockHash(record).set(hash);
  return hash;
}

/**
 * What `w` wrote, in an ArrayBuffer holding nothing else (transferring it moves nothing else): the
 * writer's own buffer when it cannot be Node's shared pool (the pool is never larger than
 * Buffer.poolSize), else a copy. Not copying a batch of tens of megabytes spares the thread that
 * much memory to allocate and collect.
 */
function owned(w: ByteWriter): Uint8Array {
  const b = w.written();
  if (b.byteOffset === 0 && b.buffer.byteLength > Buffer.poolSize) return b;
  return new Uint8Array(b);
}

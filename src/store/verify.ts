/**
 * A consistency check of a store (docs/architecture.md §3): every block from earliest to head
 * is whole (header, hash index, parent link, transactions and their hash index, logs record,
 * address table, logsBloom, storage history), every complete segment's bloom rows and address index
 * equal what the blocks give, nothing is indexed outside earliest..head, and the meta markers are
 * in range. Given the mark of an earlier check that found nothing (VerifiedMark), it checks only
 * what was written since: the blocks after the marked one (while that block's hash is unchanged),
 * the runs made since and the segments completed since, besides the small recent indexes and the
 * markers, which it always checks.
 *
 * Records are checked by round trip (decode, encode again, compare bytes), so a damaged or
 * truncated record shows. The check runs synchronously, so it reads one snapshot of the store
 * even while a writer commits (lmdb-js renews its read transaction only on a later tick).
 */
import { BloomCache } from '../chain/bloomCache.js';
import type { BlockHeader, Log } from '../chain/types.js';
import { encodeSegmentBlocks, storedSegmentAddresses } from './addressIndex.js';
import { BlockTxsReader, decodeBlockTxs, encodeBlockTxs } from './blockTxsRecord.js';
import { decodeBundle, decodeHeader, decodeTx, encodeBundle, encodeHeader, encodeTx } from './codec.js';
import {
  decodeAddressSegmentKey,
  decodeBlockKey,
  decodeBloomBitsKey,
  decodeStorageKey,
  decodeTxKey,
  encodeAddressSegmentKey,
  encodeBlockKey,
  encodeBloomBitsKey,
  encodeStorageKey,
  encodeTxKey,
  HASH_BYTES,
  STORAGE_PREFIX_BYTES,
} from './keys.js';
import { decodeLogs, encodeLogs } from './logsRecord.js';
import { decodeReceipts, encodeReceipts } from './receiptsRecord.js';
import { headerLogsBloom, storedBlockHash } from './recordViews.js';
import {
  decodeRunChunkKey,
  decodeRunFilterKey,
  decodeStorageChunk,
  RunKind,
  runStartKey,
  TX_ENTRY_BYTES,
  TX_PREFIX_BYTES,
  txEntryIndex,
  txEntryNumber,
} from './runChunks.js';
import { filterMayHold, storageKeyHash, txKeyHash } from './runFilter.js';
import {
  FrozenRuns,
  type MergeProgress,
  mergeAfter,
  RUNS_KEY,
  RUNS_MARK_KEY,
  type RunManifest,
  readManifest,
} from './runs.js';
import { ADDRESS_INDEX_FLAG, CHAIN_DATABASES, SCHEMA_VERSION, type Store } from './schema.js';
import { BLOOM_BITS, buildSegmentRows, segmentOf, segmentStart } from './segments.js';

/** What a check that found no problem covered: the blocks up to `to` (whose hash was `hash`) and the runs by id. */
export interface VerifiedMark {
  to: number;
  /** The block's hash, hex: a later check starts after `to` only while it is still the block there. */
  hash: string;
  runs: number[];
}

/** What verifyStore found. */
export interface VerifyResult {
  /** Blocks from earliest to head (0 for an empty store). */
  blocks: number;
  /** The first block checked (after the mark given, or earliest); undefined for an empty store. */
  from?: number;
  /** One line per inconsistency; empty when the store is consistent. */
  problems: string[];
  /** What this check covered, for the next one to start after; only when it found no problem. */
  mark?: VerifiedMark;
}

/** Options of verifyStore. */
export interface VerifyOptions {
  /** Told how many of how many blocks it has checked. */
  onBlock?: (checked: number, total: number) => void;
  /** An earlier check's mark: only what was written since is checked (everything when it no longer fits). */
  since?: VerifiedMark;
}

/**
 * Problems listed in full; past it only their number is added, so a badly damaged store still gives a readable report.
 */
const MAX_PROBLEMS = 1_000;

/** Bytes of a block key, a transaction key, a bloom-bits key and an address-index key. */
const BLOCK_KEY_BYTES = 8;
const TX_KEY_BYTES = 12;
const BLOOM_BITS_KEY_BYTES = 6;
const ADDRESS_SEGMENT_KEY_BYTES = 24;

/** Bytes of an address. */
const ADDRESS_BYTES = 20;

/** Meta entries the first batch writes together with the head. */
const CHAIN_META = [
  'chainId',
  'earliest',
  'safe',
  'finalized',
  'pending',
  ADDRESS_INDEX_FLAG,
  RUNS_KEY,
  RUNS_MARK_KEY,
] as const;

const hex = (bytes: Uint8Array) => '0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
const same = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;
const isBlockNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** What verify reads of a run. */
type RunInfoView = { from: number; to: number };

/** Checks one store, collecting problems. */
class Verifier {
  readonly problems: string[] = [];
  private omitted = 0;
  private readonly bloom = new BloomCache();
  /** Walks a transactions record (the hash index's entries are checked against them). */
  private readonly txReader = new BlockTxsReader();
  /** Storage keys per block number, counted by one scan of the storage database. */
  private readonly storageKeys = new Map<number, number>();
  /** Address-index entries per segment, counted by one scan of the addressSegments database. */
  private readonly addressEntries = new Map<number, number>();
  /** Frozen transaction-hash entries per block, counted by one scan of the runs. */
  private readonly frozenTxs = new Map<number, number>();
  /** The run manifest (an empty one while nothing is frozen) and the lookups through it. */
  private manifest: RunManifest = { frozenTo: -1, nextId: 0, runs: [], merges: [] };
  private readonly runs: FrozenRuns;

  /** The ids of the runs being merged into (merges in progress), whose chunks are not runs yet. */
  private readonly partial = new Set<number>();
  /** The runs merges in progress write, by id: their range is their inputs'; they count what they hold of them. */
  private readonly outputs = new Map<number, RunInfoView>();
  /** The merge in progress each run being merged is an input of, by the run's id. */
  private readonly mergeOf = new Map<number, MergePlace>();
  /** The run ids an earlier check covered (empty for a full check). */
  private verifiedRuns = new Set<number>();
  /** The last block an earlier check covered (−1 for a full check). */
  private verifiedTo = -1;

  /** A checker of `store`, telling `onBlock` how many of how many blocks it has checked. */
  constructor(
    private readonly store: Store,
    private readonly onBlock?: (checked: number, total: number) => void,
  ) {
    this.runs = new FrozenRuns(store);
  }

  /** Whether `since` still describes this store: its block is held with the same hash, at or below the head. */
  private fits(since: VerifiedMark | undefined, earliest: number, head: number): since is VerifiedMark {
    if (since === undefined || since.to < earliest || since.to > head) return false;
    const raw = this.store.headers.getBinary(encodeBlockKey(since.to));
    return raw !== undefined && hex(storedBlockHash(raw)) === since.hash;
  }

  /** Records a problem. */
  private report(problem: string): void {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(problem);
    else this.omitted++;
  }

  /** Runs every check (those of what changed since `since`, when it fits) and returns the result. */
  run(since?: VerifiedMark): VerifyResult {
    const s = this.store;
    const version = s.meta.get('schemaVersion');
    const head = s.meta.get('head');
    // A store killed while it was first opened may lack even its version: it holds nothing yet.
    if (version !== SCHEMA_VERSION && (version !== undefined || head !== undefined))
      this.report(`meta: schema version ${String(version)}, want ${SCHEMA_VERSION}`);
    let blocks = 0;
    let from: number | undefined;
    if (head === undefined) this.checkEmpty();
    else if (!isBlockNumber(head)) this.report(`meta: head ${JSON.stringify(head)} is not a block number`);
    else {
      const earliest = s.meta.get('earliest');
      if (!isBlockNumber(earliest) || earliest > head)
        this.report(`meta: earliest ${JSON.stringify(earliest)} is not a block number at or below head ${head}`);
      else {
        blocks = head - earliest + 1;
        if (this.fits(since, earliest, head)) {
          this.verifiedTo = since.to;
          this.verifiedRuns = new Set(since.runs);
        }
        from = this.verifiedTo + 1 > earliest ? this.verifiedTo + 1 : earliest;
        this.checkChain(earliest, head, from);
      }
    }
    if (this.omitted > 0) this.problems.push(`… and ${this.omitted} more problems`);
    return { blocks, from, problems: this.problems, mark: this.problems.length === 0 ? this.mark() : undefined };
  }

  /** What this check covered: up to the head, every run of the manifest. */
  private mark(): VerifiedMark | undefined {
    const head = this.store.meta.get('head') as number | undefined;
    const raw = head === undefined ? undefined : this.store.headers.getBinary(encodeBlockKey(head));
    if (head === undefined || raw === undefined) return undefined;
    return { to: head, hash: hex(storedBlockHash(raw)), runs: this.manifest.runs.map((run) => run.id) };
  }

  /** A store without a head holds no chain data at all. */
  private checkEmpty(): void {
    for (const name of CHAIN_META)
      if (this.store.meta.doesExist(name)) this.report(`meta: ${name} is set but the store has no head`);
    for (const name of CHAIN_DATABASES) {
      const count = this.store[name].getKeysCount();
      if (count > 0) this.report(`${name}: ${count} entries but the store has no head`);
    }
  }

  /** Checks a store holding blocks earliest..head, its blocks from `from` on (those before it checked earlier). */
  private checkChain(earliest: number, head: number, from: number): void {
    this.checkMeta(head);
    this.checkRuns(earliest, head);
    this.scanStorage(earliest, head);
    this.scanOutside(earliest, head);
    this.scanHashIndexes(earliest, head);
    let parent: BlockHeader | undefined;
    const before = from > earliest ? this.store.headers.getBinary(encodeBlockKey(from - 1)) : undefined;
    if (before !== undefined) parent = decodeHeader(before);
    for (let n = from; n <= head; n++) {
      parent = this.checkBlock(n, parent);
      this.onBlock?.(n - from + 1, head - from + 1);
    }
    this.checkSegments(earliest, head);
    this.checkOrphans();
  }

  /** chainId, safe, finalized and the pending block. */
  private checkMeta(head: number): void {
    const meta = this.store.meta;
    const chainId = meta.get('chainId');
    if (typeof chainId !== 'string' || !/^\d+$/.test(chainId))
      this.report(`meta: chain id ${JSON.stringify(chainId)} is not a decimal number`);
    for (const name of ['safe', 'finalized'] as const) {
      const value = meta.get(name);
      // Below earliest is allowed: ingest --from keeps the node's markers, which may precede the first stored block.
      if (value !== undefined && (!isBlockNumber(value) || value > head))
        this.report(`meta: ${name} ${JSON.stringify(value)} is not a block number at or below head ${head}`);
    }
    const pending = meta.get('pending');
    if (pending === undefined) return;
    if (!(pending instanceof Uint8Array)) {
      this.report('meta: the pending block is not a record');
      return;
    }
    try {
      const bundle = decodeBundle(pending);
      if (!same(encodeBundle(bundle), pending)) this.report('meta: the pending block record does not round-trip');
      const top = this.store.headers.getBinary(encodeBlockKey(head));
      if (bundle.header.number !== head + 1)
        this.report(`meta: the pending block is number ${bundle.header.number}, want head + 1 = ${head + 1}`);
      else if (top && !same(bundle.header.parentHash, storedBlockHash(top)))
        this.report(`meta: the pending block's parent is not head ${head}`);
    } catch (error) {
      this.report(`meta: the pending block does not decode: ${describe(error)}`);
    }
  }

  /**
   * The run manifest and the runs: contiguous ranges from earliest ending at the freeze point, levels
   * not rising towards the newest; every chunk under a listed run, keyed by its last entry, its
   * entries ascending, each held by the run's filter; a transaction entry names a stored transaction
   * with that hash prefix; storage entries are counted per block, transaction entries too.
   */
  private checkRuns(earliest: number, head: number): void {
    const s = this.store;
    const stored = readManifest(s);
    if (!stored) {
      for (const name of ['txRuns', 'storageRuns', 'runFilters'] as const) {
        const count = s[name].getKeysCount();
        if (count > 0) this.report(`${name}: ${count} entries but no run manifest`);
      }
      return;
    }
    this.manifest = stored;
    const { runs, frozenTo } = stored;
    if (frozenTo > head) this.report(`runs: frozen to block ${frozenTo}, past head ${head}`);
    let next = runs[0]?.from ?? frozenTo + 1;
    if (next < earliest) this.report(`runs: the first run starts at block ${next}, before earliest ${earliest}`);
    runs.forEach((run, i) => {
      if (run.from !== next || run.to < run.from)
        this.report(`runs: run ${run.id} covers ${run.from}..${run.to}, want it to start at ${next}`);
      if (i > 0 && run.level > runs[i - 1]!.level)
        this.report(`runs: run ${run.id} of level ${run.level} is newer than one of level ${runs[i - 1]!.level}`);
      if (run.id >= stored.nextId) this.report(`runs: run ${run.id} is not below the next id ${stored.nextId}`);
      next = run.to + 1;
    });
    if (next !== frozenTo + 1) this.report(`runs: the runs end at block ${next - 1}, the freeze point is ${frozenTo}`);
    const byId = new Map(runs.map((run) => [run.id, run]));
    this.checkMerges(stored, byId);
    for (const key of s.runFilters.getKeys()) {
      const { kind, id } = decodeRunFilterKey(key);
      const ofRun = byId.has(id) && (kind === RunKind.Tx || kind === RunKind.Storage);
      const ofMerge = this.partial.has(id) && (kind === RunKind.MergeTx || kind === RunKind.MergeStorage);
      if (!ofRun && !ofMerge) this.report(`runFilters: a filter ${hex(key)} of no run`);
    }
    const fresh = runs.filter((run) => !this.verifiedRuns.has(run.id)).map((run) => run.id);
    // A merge's steps move its inputs' entries into the run it writes: read it with any input not checked before.
    for (const merge of stored.merges) if (merge.inputs.some((id) => fresh.includes(id))) fresh.push(merge.id);
    this.scanTxRuns(byId, this.verifiedRuns.size > 0 ? fresh : undefined);
    this.scanStorageRuns(byId, this.verifiedRuns.size > 0 ? fresh : undefined);
  }

  /**
   * The merges in progress: each into a new id and one level up, of contiguous runs of one level, no run in two, no
   * two into one level, its place a part and a key of that part. The scans read the run it writes (in order, keyed by
   * their last entries) with its inputs: its entries are counted there, an input's only past that key (its steps free
   * the chunks they pass), and none checked against a filter, which its last step writes.
   */
  private checkMerges(stored: RunManifest, byId: Map<number, RunInfoView & { level: number }>): void {
    const merging = new Set<number>();
    const levels = new Set<number>();
    for (const merge of stored.merges) {
      const what = `runs: the merge into run ${merge.id}`;
      if (merge.id >= stored.nextId || byId.has(merge.id) || this.partial.has(merge.id))
        this.report(`${what} has an id in use or not below the next id ${stored.nextId}`);
      this.partial.add(merge.id);
      if (levels.has(merge.level)) this.report(`${what} is a second merge into level ${merge.level}`);
      levels.add(merge.level);
      const places = merge.inputs.map((id) => stored.runs.findIndex((run) => run.id === id));
      if (
        merge.inputs.length === 0 ||
        places.some((place, i) => place < 0 || (i > 0 && place !== places[i - 1]! + 1)) ||
        merge.inputs.some((id) => merging.has(id) || byId.get(id)?.level !== merge.level - 1)
      )
        this.report(
          `${what} of level ${merge.level} has inputs ${merge.inputs.join(', ')}, not contiguous runs below it`,
        );
      for (const id of merge.inputs) merging.add(id);
      const inputs = merge.inputs.map((id) => byId.get(id)).filter((run) => run !== undefined);
      if (inputs.length > 0) this.outputs.set(merge.id, { from: inputs[0]!.from, to: inputs.at(-1)!.to });
      const place = { part: merge.part, after: mergeAfter(merge) };
      for (const id of merge.inputs) this.mergeOf.set(id, place);
      const keyHex = merge.part === 'tx' ? 2 * TX_ENTRY_BYTES : 2 * (STORAGE_PREFIX_BYTES + BLOCK_KEY_BYTES);
      if ((merge.part !== 'tx' && merge.part !== 'storage') || (merge.after !== '' && merge.after.length !== keyHex))
        this.report(`${what} stands at part ${merge.part}, key '${merge.after}'`);
    }
  }

  /** The chunks of the runs `ids` of `db`, or all of its chunks (undefined). */
  private *chunks(db: Store['txRuns'], ids: number[] | undefined): Iterable<{ key: Buffer; value: Buffer }> {
    if (ids === undefined) {
      yield* db.getRange();
      return;
    }
    for (const id of ids) yield* db.getRange({ start: runStartKey(id), end: runStartKey(id + 1) });
  }

  /** Checks the transaction-hash chunks (of the runs `ids`, or all) and counts their entries per block. */
  private scanTxRuns(byId: Map<number, RunInfoView>, ids?: number[]): void {
    const s = this.store;
    let previous: Buffer | undefined;
    let previousId = -1;
    for (const { key, value } of this.chunks(s.txRuns, ids)) {
      const { id, last } = decodeRunChunkKey(key);
      const output = this.outputs.get(id);
      const run = byId.get(id) ?? output;
      const merge = this.mergeOf.get(id);
      if ((!run && !this.partial.has(id)) || value.length === 0 || value.length % TX_ENTRY_BYTES !== 0) {
        this.report(`txRuns: a chunk ${hex(key)} of ${value.length} bytes, of ${run ? 'run ' + id : 'no run'}`);
        continue;
      }
      if (id !== previousId) previous = undefined;
      previousId = id;
      const filter = s.runFilters.getBinary(Buffer.from([RunKind.Tx, ...key.subarray(0, 4)]));
      for (let at = 0; at < value.length; at += TX_ENTRY_BYTES) {
        const entry = value.subarray(at, at + TX_ENTRY_BYTES);
        if (previous && Buffer.compare(previous, entry) >= 0)
          this.report(`txRuns: run ${id}: entry ${hex(entry)} is not above ${hex(previous)}`);
        previous = entry;
        // An input's entry a merge in progress has written is counted in the run the merge writes.
        if (!run || (merge && txMerged(merge, entry))) continue;
        // That run's filter is written with its last step.
        if (!output && (!filter || !filterMayHold(filter, txKeyHash(entry))))
          this.report(`txRuns: run ${id}: its filter rules out ${hex(entry)}`);
        const number = txEntryNumber(entry, 0);
        if (number > run.to) continue;
        const index = txEntryIndex(entry, 0);
        const hash = number >= run.from ? this.storedTxHash(number, index) : undefined;
        if (!hash || !same(hash.subarray(0, TX_PREFIX_BYTES), entry.subarray(0, TX_PREFIX_BYTES))) {
          this.report(
            `txRuns: run ${id} (${run.from}..${run.to}): ${hex(entry)} ` +
              'is not a stored transaction with that hash prefix',
          );
        } else this.frozenTxs.set(number, (this.frozenTxs.get(number) ?? 0) + 1);
      }
      if (!same(last, value.subarray(value.length - TX_ENTRY_BYTES, value.length - TX_ENTRY_BYTES + TX_PREFIX_BYTES)))
        this.report(`txRuns: chunk ${hex(key)} is not keyed by its last entry`);
    }
  }

  /**
   * Checks the storage chunks (of the runs `ids`, or all) and counts their entries per block (with the recent
   * B-tree's, in scanStorage).
   */
  private scanStorageRuns(byId: Map<number, RunInfoView>, ids?: number[]): void {
    const s = this.store;
    let previous: Buffer | undefined;
    let previousId = -1;
    for (const { key, value } of this.chunks(s.storageRuns, ids)) {
      const { id, last } = decodeRunChunkKey(key);
      const output = this.outputs.get(id);
      const run = byId.get(id) ?? output;
      const merge = this.mergeOf.get(id);
      if (!run && !this.partial.has(id)) {
        this.report(`storageRuns: a chunk ${hex(key)} of no run`);
        continue;
      }
      if (id !== previousId) previous = undefined;
      previousId = id;
      const filter = s.runFilters.getBinary(Buffer.from([RunKind.Storage, ...key.subarray(0, 4)]));
      let entries: { key: Uint8Array; value: Uint8Array }[];
      try {
        entries = decodeStorageChunk(value);
      } catch (error) {
        this.report(`storageRuns: chunk ${hex(key)} does not decode: ${describe(error)}`);
        continue;
      }
      for (const entry of entries) {
        const entryKey = Buffer.from(entry.key);
        if (previous && Buffer.compare(previous, entryKey) >= 0)
          this.report(`storageRuns: run ${id}: key ${hex(entryKey)} is not above ${hex(previous)}`);
        previous = entryKey;
        if (!run || (merge && storageMerged(merge, entryKey))) continue;
        if (!output && (!filter || !filterMayHold(filter, storageKeyHash(entryKey))))
          this.report(`storageRuns: run ${id}: its filter rules out ${hex(entryKey)}`);
        if (entry.value.length > HASH_BYTES || (entry.value.length > 0 && entry.value[0] === 0))
          this.report(`storageRuns: value of ${hex(entryKey)} is not a minimal word`);
        const { number } = decodeStorageKey(entryKey);
        if (number > run.to) continue;
        if (number < run.from)
          this.report(`storageRuns: run ${id} (${run.from}..${run.to}) holds key ${hex(entryKey)} of block ${number}`);
        else this.storageKeys.set(number, (this.storageKeys.get(number) ?? 0) + 1);
      }
      if (entries.length === 0 || !same(last, entries.at(-1)!.key))
        this.report(`storageRuns: chunk ${hex(key)} is not keyed by its last entry`);
    }
  }

  /** Counts storage keys per block; keys outside earliest..head, at frozen blocks, or malformed values are problems. */
  private scanStorage(earliest: number, head: number): void {
    for (const { key, value } of this.store.storage.getRange()) {
      if (key.length !== STORAGE_PREFIX_BYTES + BLOCK_KEY_BYTES) {
        this.report(`storage: key ${hex(key)} has ${key.length} bytes`);
        continue;
      }
      const { number } = decodeStorageKey(key);
      if (number < earliest || number > head)
        this.report(`storage: key ${hex(key)} is at block ${number}, outside ${earliest}..${head}`);
      else if (number <= this.manifest.frozenTo)
        this.report(`storage: key ${hex(key)} is at block ${number}, frozen (to ${this.manifest.frozenTo})`);
      else this.storageKeys.set(number, (this.storageKeys.get(number) ?? 0) + 1);
      if (value.length > HASH_BYTES || (value.length > 0 && value[0] === 0))
        this.report(`storage: value of ${hex(key)} is not a minimal word (${hex(value)})`);
    }
  }

  /** Entries of the block-keyed databases below earliest or above head. */
  private scanOutside(earliest: number, head: number): void {
    const ranges = [{ end: encodeBlockKey(earliest) }, { start: encodeBlockKey(head + 1) }];
    for (const name of ['headers', 'logs', 'receipts', 'storageWrites', 'txs', 'txHashes'] as const) {
      for (const range of ranges) {
        for (const key of this.store[name].getKeys(range)) {
          const where = key.length >= BLOCK_KEY_BYTES ? `block ${decodeBlockKey(key)}` : `key ${hex(key)}`;
          this.report(`${name}: an entry for ${where}, outside ${earliest}..${head}`);
        }
      }
    }
  }

  /**
   * Every blockByHash and txByHash entry names a stored block or transaction with that hash (a blockByHash entry of a
   * block an earlier check covered is not read again: its header is a random read, most of an incremental check's
   * time on a store larger than memory).
   */
  private scanHashIndexes(earliest: number, head: number): void {
    for (const { key, value } of this.store.blockByHash.getRange()) {
      const number = value.length === BLOCK_KEY_BYTES ? decodeBlockKey(value) : -1;
      if (number >= earliest && number <= this.verifiedTo) continue;
      const raw =
        number >= earliest && number <= head ? this.store.headers.getBinary(encodeBlockKey(number)) : undefined;
      if (!raw || !same(storedBlockHash(raw), key))
        this.report(`blockByHash: ${hex(key)} → ${hex(value)} is not a stored block with that hash`);
    }
    for (const { key, value } of this.store.txByHash.getRange()) {
      const at = value.length === TX_KEY_BYTES ? decodeTxKey(value) : undefined;
      const hash = at && this.storedTxRecord(at.number, at.index) && this.storedTxHash(at.number, at.index);
      if (!hash || !same(hash, key))
        this.report(`txByHash: ${hex(key)} → ${hex(value)} is not a stored transaction with that hash`);
      else if (decodeTxKey(value).number <= this.manifest.frozenTo)
        this.report(`txByHash: ${hex(key)} → ${hex(value)} is a frozen block's (to ${this.manifest.frozenTo})`);
    }
  }

  /** Checks block `n` against its parent's header; returns its header (undefined when missing). */
  private checkBlock(n: number, parent: BlockHeader | undefined): BlockHeader | undefined {
    const s = this.store;
    const key = encodeBlockKey(n);
    const raw = s.headers.getBinary(key);
    if (!raw) {
      this.report(`block ${n}: header missing`);
      return undefined;
    }
    let header: BlockHeader;
    try {
      header = decodeHeader(raw);
      if (!same(encodeHeader(header), raw)) this.report(`block ${n}: header record does not round-trip`);
    } catch (error) {
      this.report(`block ${n}: header does not decode: ${describe(error)}`);
      return undefined;
    }
    if (header.number !== n) this.report(`block ${n}: header says number ${header.number}`);
    const byHash = s.blockByHash.getBinary(Buffer.from(header.hash));
    if (!byHash || !same(byHash, key))
      this.report(`block ${n}: blockByHash[${hex(header.hash)}] is ${byHash ? hex(byHash) : 'missing'}`);
    if (parent && !same(header.parentHash, parent.hash))
      this.report(`block ${n}: parent hash ${hex(header.parentHash)} is not block ${n - 1}'s hash`);
    this.checkTransactions(n, header.txCount);
    this.checkReceipts(n, header.txCount);
    this.checkLogs(n, header);
    this.checkStorageWrites(n);
    return header;
  }

  /** One receipt per transaction, decodable and round-tripping; no record for a block without transactions. */
  private checkReceipts(n: number, txCount: number): void {
    const raw = this.store.receipts.getBinary(encodeBlockKey(n));
    if (raw === undefined) {
      if (txCount > 0) this.report(`block ${n}: receipts missing`);
      return;
    }
    try {
      const receipts = decodeReceipts(raw);
      if (receipts.length !== txCount)
        this.report(`block ${n}: ${receipts.length} receipts for the header's ${txCount} transactions`);
      if (!same(encodeReceipts(receipts), raw)) this.report(`block ${n}: receipts record does not round-trip`);
    } catch (error) {
      this.report(`block ${n}: receipts do not decode: ${describe(error)}`);
    }
  }

  /** Whether block `n`'s transactions record holds a transaction `index`. */
  private storedTxRecord(n: number, index: number): boolean {
    const raw = this.store.txs.getBinaryFast(encodeBlockKey(n));
    return raw !== undefined && this.txReader.load(raw).record(index) !== undefined;
  }

  /** The hash of transaction `index` of block `n` in the block's txHashes record (undefined when it has none). */
  private storedTxHash(n: number, index: number): Buffer | undefined {
    const list = this.store.txHashes.getBinary(encodeBlockKey(n));
    const at = index * HASH_BYTES;
    return list && at + HASH_BYTES <= list.length ? list.subarray(at, at + HASH_BYTES) : undefined;
  }

  /**
   * The block's transactions record holds transactions 0..txCount−1, round-trips, and each decodes with its hash (the
   * block's txHashes value, one per transaction) and is hash-indexed; none beyond.
   */
  private checkTransactions(n: number, txCount: number): void {
    const s = this.store;
    const list = s.txHashes.getBinary(encodeBlockKey(n));
    if (txCount === 0 ? list !== undefined : list === undefined || list.length !== txCount * HASH_BYTES) {
      this.report(
        `block ${n}: the transaction hashes value holds ${(list?.length ?? 0) / HASH_BYTES} hashes ` +
          `for the header's ${txCount} transactions`,
      );
    }
    const records = this.blockTxRecords(n);
    for (let index = txCount; index < records.length; index++)
      this.report(`block ${n}: transaction ${index} beyond the header's ${txCount}`);
    const expected = Math.min(records.length, txCount);
    for (let index = 0; index < expected; index++) {
      const hashAt = index * HASH_BYTES;
      if (!list || hashAt + HASH_BYTES > list.length) continue;
      const hash = list.subarray(hashAt, hashAt + HASH_BYTES);
      const record = records[index]!;
      try {
        if (!same(encodeTx(decodeTx(record, hash)), record))
          this.report(`block ${n}: transaction ${index} record does not round-trip`);
      } catch (error) {
        this.report(`block ${n}: transaction ${index} does not decode: ${describe(error)}`);
      }
      this.checkTxIndexed(n, index, hash);
    }
    if (expected < txCount) this.report(`block ${n}: transactions ${expected}..${txCount - 1} missing`);
    const frozen = this.frozenTxs.get(n) ?? 0;
    if (n <= this.manifest.frozenTo ? frozen !== txCount : frozen !== 0)
      this.report(
        `block ${n}: ${frozen} frozen transaction-hash entries for ${n <= this.manifest.frozenTo ? txCount : 0}`,
      );
  }
  /** The TxForm.Stored records in block `n`'s transactions record (none when it is missing or does not decode). */
  private blockTxRecords(n: number): Uint8Array[] {
    const raw = this.store.txs.getBinary(encodeBlockKey(n));
    if (raw === undefined) return [];
    try {
      const records = decodeBlockTxs(raw);
      if (!same(encodeBlockTxs(records), raw)) this.report(`block ${n}: transactions record does not round-trip`);
      if (records.length === 0) this.report(`block ${n}: an empty transactions record`);
      return records;
    } catch (error) {
      this.report(`block ${n}: transactions record does not decode: ${describe(error)}`);
      return [];
    }
  }

  /** Transaction `index` of block `n`, whose hash is `hash`, is where the frozen runs or txByHash say it is. */
  private checkTxIndexed(n: number, index: number, hash: Buffer): void {
    if (n <= this.manifest.frozenTo) {
      const found = this.runs.txLocation(hash);
      if (!found) this.report(`block ${n}: transaction ${index} (${hex(hash)}) is in no run`);
      else if (found.number !== n || found.index !== index)
        this.report(`block ${n}: the runs place transaction ${index} at ${found.number}/${found.index}`);
      return;
    }
    const at = this.store.txByHash.getBinary(Buffer.from(hash));
    if (!at) this.report(`block ${n}: transaction ${index} (${hex(hash)}) is not in txByHash`);
    else if (!same(at, encodeTxKey(n, index))) {
      // A transaction may be included again later (after a reorganisation): the index then names the later place.
      const place = decodeTxKey(at);
      const later = place.number > n && this.storedTxHash(place.number, place.index);
      if (!later || !same(later, hash))
        this.report(`block ${n}: txByHash of transaction ${index} points to ${hex(at)}`);
    }
  }

  /** The logs record decodes, round-trips (its address table too), fits the transactions and the header's logsBloom. */
  private checkLogs(n: number, header: BlockHeader): void {
    const s = this.store;
    const key = encodeBlockKey(n);
    const record = s.logs.getBinary(key);
    let logs: Log[] = [];
    if (record) {
      try {
        logs = decodeLogs(record);
        if (!same(encodeLogs(logs), record)) this.report(`block ${n}: logs record does not round-trip`);
      } catch (error) {
        this.report(`block ${n}: logs record does not decode: ${describe(error)}`);
        return;
      }
    }
    let previous = 0;
    logs.forEach((log, i) => {
      if (log.txIndex >= header.txCount)
        this.report(`block ${n}: log ${i} names transaction ${log.txIndex} of ${header.txCount}`);
      if (log.txIndex < previous)
        this.report(`block ${n}: log ${i} names transaction ${log.txIndex} after ${previous}`);
      previous = log.txIndex;
    });
    if (!same(this.bloom.logsBloom(logs), header.logsBloom))
      this.report(`block ${n}: logsBloom is not the OR of its ${logs.length} logs' blooms`);
  }

  /**
   * A recent block's storage-write list names exactly the storage keys stored at the block; a frozen block keeps none
   * (its writes are in the runs, checked with them).
   */
  private checkStorageWrites(n: number): void {
    const writes = this.store.storageWrites.getBinary(encodeBlockKey(n));
    if (n <= this.manifest.frozenTo) {
      if (writes) this.report(`block ${n}: a storage-write list kept for a frozen block`);
      return;
    }
    const stored = this.storageKeys.get(n) ?? 0;
    if (!writes) {
      if (stored > 0) this.report(`block ${n}: ${stored} storage keys but no storage-write list`);
      return;
    }
    if (writes.length % STORAGE_PREFIX_BYTES !== 0 || writes.length === 0) {
      this.report(`block ${n}: storage-write list of ${writes.length} bytes`);
      return;
    }
    const distinct = new Set<string>();
    for (let off = 0; off < writes.length; off += STORAGE_PREFIX_BYTES) {
      const prefix = writes.subarray(off, off + STORAGE_PREFIX_BYTES);
      distinct.add(prefix.toString('latin1'));
      const key = encodeStorageKey(prefix.subarray(0, ADDRESS_BYTES), prefix.subarray(ADDRESS_BYTES), n);
      if (!this.store.storage.doesExist(key)) {
        this.report(`block ${n}: storage write ${hex(prefix)} has no storage key`);
      }
    }
    if (distinct.size !== stored)
      this.report(`block ${n}: ${distinct.size} distinct storage writes listed, ${stored} storage keys stored`);
  }

  /** Bloom rows and address index: exactly the complete segments', equal to what their blocks give. */
  private checkSegments(earliest: number, head: number): void {
    const s = this.store;
    const first = segmentOf(earliest);
    const complete = (segment: number) => segment >= first && segmentStart(segment + 1) - 1 <= head;
    for (const key of s.bloomBits.getKeys()) {
      const { bit, segment } = key.length === BLOOM_BITS_KEY_BYTES ? decodeBloomBitsKey(key) : { bit: -1, segment: -1 };
      if (bit < 0 || bit >= BLOOM_BITS || !complete(segment))
        this.report(`bloomBits: a row ${hex(key)} for bit ${bit} of segment ${segment}, not a complete segment`);
    }
    const indexed = s.meta.get(ADDRESS_INDEX_FLAG) === true;
    for (const key of s.addressSegments.getKeys()) {
      const segment = key.length === ADDRESS_SEGMENT_KEY_BYTES ? decodeAddressSegmentKey(key).segment : -1;
      if (!complete(segment))
        this.report(`addressSegments: an entry ${hex(key)} for segment ${segment}, not a complete segment`);
      else this.addressEntries.set(segment, (this.addressEntries.get(segment) ?? 0) + 1);
    }
    for (let segment = first; complete(segment); segment++) {
      // A segment complete at the earlier check's block was checked then.
      if (segmentStart(segment + 1) - 1 <= this.verifiedTo) continue;
      this.checkBloomRows(segment);
      if (indexed) this.checkAddressIndex(segment);
    }
  }

  /** A complete segment's 2048 bloom rows equal the transposed blooms of its headers. */
  private checkBloomRows(segment: number): void {
    const start = segmentStart(segment);
    const rows = buildSegmentRows((i) => {
      const raw = this.store.headers.getBinary(encodeBlockKey(start + i));
      return raw === undefined ? undefined : headerLogsBloom(raw);
    });
    let wrong = 0;
    rows.forEach((row, bit) => {
      const stored = this.store.bloomBits.getBinary(encodeBloomBitsKey(bit, segment));
      if (!stored || !same(stored, row)) wrong++;
    });
    if (wrong > 0)
      this.report(`segment ${segment}: ${wrong} of ${BLOOM_BITS} bloom rows missing or not the blocks' blooms`);
  }

  /** A complete segment's address index holds exactly the addresses of its blocks' address tables. */
  private checkAddressIndex(segment: number): void {
    const expected = storedSegmentAddresses(this.store, segment);
    let wrong = 0;
    for (const [address, offsets] of expected) {
      const stored = this.store.addressSegments.getBinary(
        encodeAddressSegmentKey(Buffer.from(address, 'latin1'), segment),
      );
      if (!stored || !same(stored, encodeSegmentBlocks(offsets))) wrong++;
    }
    const entries = this.addressEntries.get(segment) ?? 0;
    if (wrong > 0)
      this.report(`segment ${segment}: ${wrong} of ${expected.size} address-index entries missing or wrong`);
    if (entries !== expected.size)
      this.report(`segment ${segment}: ${entries} address-index entries, its blocks have ${expected.size} addresses`);
  }

  /** Orphans decode to a block with their hash, and none is canonical. */
  private checkOrphans(): void {
    for (const { key, value } of this.store.orphans.getRange()) {
      try {
        const bundle = decodeBundle(value);
        if (!same(bundle.header.hash, key)) this.report(`orphans: ${hex(key)} holds block ${hex(bundle.header.hash)}`);
      } catch (error) {
        this.report(`orphans: ${hex(key)} does not decode: ${describe(error)}`);
      }
      if (this.store.blockByHash.doesExist(key)) this.report(`orphans: ${hex(key)} is also canonical`);
    }
  }
}

/**
 * Checks the store for consistency (what was written after `since`, when given and still fitting), telling `onBlock`
 * of its progress; returns the number of blocks, every problem found, and the mark of what it covered.
 */
export function verifyStore(store: Store, options: VerifyOptions = {}): VerifyResult {
  return new Verifier(store, options.onBlock).run(options.since);
}

/** Where a merge in progress stands: the part it writes, and the last key of that part written (none yet). */
interface MergePlace {
  part: MergeProgress['part'];
  after: Buffer | undefined;
}

/** Whether a merge in progress has written an input's transaction entry into the run it writes. */
function txMerged(merge: MergePlace, entry: Uint8Array): boolean {
  return merge.part === 'storage' || (merge.after !== undefined && Buffer.compare(entry, merge.after) <= 0);
}

/** Whether a merge in progress has written an input's storage entry into the run it writes. */
function storageMerged(merge: MergePlace, key: Uint8Array): boolean {
  return merge.part === 'storage' && merge.after !== undefined && Buffer.compare(key, merge.after) <= 0;
}

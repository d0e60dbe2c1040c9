/**
 * Opens the LMDB environment and its named databases (docs/architecture.md §3). One environment per
 * data directory; all keys are binary except meta's names.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { type Database, open, type RootDatabase, type RootDatabaseOptionsWithPath } from 'lmdb';
import { STORE_DATA_FILE } from './dataFile.js';

/**
 * Meta counter: how many times the writer has rolled canonical blocks back (reorganisations; absent
 * means none). A reader that keeps per-block data of a number drops it once the counter moves,
 * since until then a stored block is never replaced, only new ones appended.
 */
export const ROLLBACKS_KEY = 'rollbacks';

/**
 * Meta: the chain's kind (chain/chainKind.ts), as given to ingest or generate or detected from its blocks; absent for
 * Ethereum stores written before kinds were.
 */
export const CHAIN_KIND_KEY = 'chainKind';

/**
 * Meta flag: every complete segment has its address index (stores written before it existed lack it until reindexed).
 */
export const ADDRESS_INDEX_FLAG = 'addressIndex';

/** The chain databases: everything but meta and the API keys (an empty store leaves them empty). */
export const CHAIN_DATABASES = [
  'headers',
  'blockByHash',
  'orphans',
  'txs',
  'txHashes',
  'txByHash',
  'receipts',
  'logs',
  'storage',
  'storageWrites',
  'bloomBits',
  'addressSegments',
  'txRuns',
  'storageRuns',
  'runFilters',
] as const;

/**
 * Version of the on-disk layout (2 added the receipts, 3 each block's transaction hashes, 4 the frozen
 * runs of the transaction-hash index and the storage history, and the members of other chains'
 * blocks, transactions and receipts kept as their node gave them, 5 transaction inputs in the word
 * form and no storage-write list for a frozen block, 6 transaction records without their hash, which
 * the block's txHashes record holds once, 7 one transactions record a block, and no log-address
 * database beside the logs records' own tables, 8 merges of frozen runs in steps); a store written
 * by another version is refused, but for READ_AS_CURRENT and MIGRATABLE_VERSIONS, which `ethlogd
 * migrate` brings to this one.
 */
export const SCHEMA_VERSION = 8;

/**
 * Older layouts this build reads as they are: a layout-7 store is a layout-8 one with no merge of
 * frozen runs in progress (8 merges in steps, recorded in the run manifest, which a layout-7 writer
 * would not finish). A writable open marks the store as this version.
 */
export const READ_AS_CURRENT: readonly number[] = [7];

/**
 * The older layouts `ethlogd migrate` converts in place (store/migrate.ts): their records read as this version's but
 * for the transaction records, which it rewrites as one record a block, and the log-address database, which it drops.
 */
export const MIGRATABLE_VERSIONS: readonly number[] = [3, 5, 6];

/** What each layout version added, for the message refusing an older store. */
const ADDED_IN: Readonly<Record<number, string>> = {
  2: 'the receipts',
  3: "each block's transaction hashes",
  4: "the frozen runs and other chains' transactions and fields (OP stack, Arbitrum)",
  5: 'compact transaction inputs',
  6: 'transaction records without their hash',
  7: 'one transactions record a block',
};

/** Most named databases the environment holds (the layout uses fewer; room for later ones). */
const MAX_DBS = 24;

/** The open environment and every named database of the layout. */
export interface Store {
  env: RootDatabase;
  /** Chain markers, schema version, the pending block and index flags, by name. */
  meta: Database<unknown, string>;
  headers: Database<Buffer, Buffer>;
  blockByHash: Database<Buffer, Buffer>;
  orphans: Database<Buffer, Buffer>;
  txs: Database<Buffer, Buffer>;
  /** u64 number → the hashes of the block's transactions, in order, concatenated (one read gives them all). */
  txHashes: Database<Buffer, Buffer>;
  txByHash: Database<Buffer, Buffer>;
  /** u64 number → the receipts of the block's transactions (store/receiptsRecord.ts). */
  receipts: Database<Buffer, Buffer>;
  logs: Database<Buffer, Buffer>;
  storage: Database<Buffer, Buffer>;
  /** u64 number → the address ‖ slot prefixes that block wrote (to undo them on a reorganisation). */
  storageWrites: Database<Buffer, Buffer>;
  /** address20 ‖ u32 segment → the complete segment's blocks with a log from it (store/addressIndex.ts). */
  addressSegments: Database<Buffer, Buffer>;
  /** u16 bit ‖ u32 segment → that bloom bit of every block of a complete segment. */
  bloomBits: Database<Buffer, Buffer>;
  /** u32 run id ‖ last hash prefix → a chunk of a frozen run's transaction-hash entries (store/runs.ts). */
  txRuns: Database<Buffer, Buffer>;
  /** u32 run id ‖ last storage key → a chunk of a frozen run's storage entries. */
  storageRuns: Database<Buffer, Buffer>;
  /** u8 kind ‖ u32 run id → the bloom filter of a run's transaction hashes or storage slots. */
  runFilters: Database<Buffer, Buffer>;
  apiKeys: Database<unknown, Buffer>;
  readOnly: boolean;
}

/** lmdb-js's environment options, with `noReadAhead` (MDB_NORDAHEAD), which its open() reads but its typings omit. */
type EnvOptions = RootDatabaseOptionsWithPath & { noReadAhead?: boolean };

/** Options for opening a store. */
export interface OpenStoreOptions {
  readOnly?: boolean;
  /** Whether a writable store maps its file writable (LMDB's MDB_WRITEMAP, below); default true. */
  writeMap?: boolean;
  /** Opens a writable store of MIGRATABLE_VERSIONS too (for `ethlogd migrate`), leaving its version as it is. */
  migrating?: boolean;
}

/**
 * Opens (creating when writable) the store in directory `path` (also when its name has a dot, which lmdb would take for
 * a file name).
 */
export function openStore(path: string, options: OpenStoreOptions = {}): Store {
  const readOnly = options.readOnly ?? false;
  // A writable store maps its file writable (LMDB's MDB_WRITEMAP): a write transaction writes its
  // pages in the map instead of copies kept in a list sorted by page number, an insertion into which
  // moves the list's tail. Most puts go to random keys (transaction hashes, storage slots), so a
  // transaction on a large store dirties about a page per put, and that list cost grew with its
  // square: extending a 20,480-block mainnet-density store by 1,200 blocks took 61 s of CPU
  // (42% of it inserting into the list) against 35 s with the write map. Readers (serve) open the
  // file read-only as before; commits stay durable (msync instead of fdatasync). The file is grown
  // to the map's size, which lmdb-js raises as the store grows. Where transactions dirty few pages
  // the list is short and the write map only costs the kernel's write-back of mapped pages as they
  // are dirtied: generate asks for none then (generateStore.ts, generateWriteMap).
  // A writable store also maps its file without read-ahead (LMDB's MDB_NORDAHEAD: the map advised
  // random). The kernel's page cache holds a file in folios of up to megabytes where read-ahead
  // filled it, and writing one 4 KiB page of a clean folio dirties, and writes back, the whole
  // folio: on a 100M-log mainnet-density store with a warm cache, appending a block's records wrote
  // 714 bytes a log to disk for its ~250 bytes of pages, a share that grew as the cache warmed
  // (and generate's tenths from 558 to 1,237 bytes a log); with the map advised random, faults
  // bring single pages and the appends wrote 253 bytes a log batch after batch, at the same rate.
  const envOptions: EnvOptions = {
    path,
    maxDbs: MAX_DBS,
    readOnly,
    compression: false,
    noSubdir: false,
    useWritemap: !readOnly && (options.writeMap ?? true),
    noReadAhead: !readOnly,
  };
  const env = open(envOptions);
  const bin = (name: string) => env.openDB<Buffer, Buffer>({ name, keyEncoding: 'binary', encoding: 'binary' });
  const store: Store = {
    env,
    meta: env.openDB<unknown, string>({ name: 'meta' }),
    headers: bin('headers'),
    blockByHash: bin('blockByHash'),
    orphans: bin('orphans'),
    txs: bin('txs'),
    txHashes: bin('txHashes'),
    txByHash: bin('txByHash'),
    receipts: bin('receipts'),
    logs: bin('logs'),
    storage: bin('storage'),
    storageWrites: bin('storageWrites'),
    bloomBits: bin('bloomBits'),
    addressSegments: bin('addressSegments'),
    txRuns: bin('txRuns'),
    storageRuns: bin('storageRuns'),
    runFilters: bin('runFilters'),
    apiKeys: env.openDB<unknown, Buffer>({ name: 'apiKeys', keyEncoding: 'binary' }),
    readOnly,
  };
  const version = store.meta.get('schemaVersion');
  const current = typeof version === 'number' && READ_AS_CURRENT.includes(version);
  if ((version === undefined || current) && !readOnly) store.meta.putSync('schemaVersion', SCHEMA_VERSION);
  else if (
    !current &&
    version !== undefined &&
    version !== SCHEMA_VERSION &&
    !(options.migrating === true && !readOnly && typeof version === 'number' && MIGRATABLE_VERSIONS.includes(version))
  ) {
    throw new Error(staleStore(path, version));
  }
  return store;
}

/** Why a store of another layout version is refused, and what to do about it. */
function staleStore(path: string, version: unknown): string {
  const what = `store at ${path} has layout version ${String(version)}, this build reads version ${SCHEMA_VERSION}`;
  if (typeof version === 'number' && version < SCHEMA_VERSION) {
    const missing = Object.entries(ADDED_IN)
      .filter(([added]) => Number(added) > version)
      .map(([, what]) => what);
    const lacking = missing.length > 1 ? [missing.slice(0, -1).join(', '), missing.at(-1)!] : missing;
    if (MIGRATABLE_VERSIONS.includes(version))
      return `${what} (it lacks ${lacking.join(' and ')}): convert it with \`ethlogd migrate --data ${path}\``;
    const rebuild = 'build it again with `ethlogd generate` or `ethlogd ingest` into a new directory';
    return `${what} (older stores lack ${lacking.join(' and ')}): ${rebuild}`;
  }
  return `${what}: it was written by a newer ethlogd; serve it with that version`;
}

/**
 * Bytes of disk the store in directory `path` takes: its data file's allocated blocks (a writer maps the file larger
 * than it fills, the rest a hole).
 */
export function storeDiskBytes(path: string): number {
  return statSync(join(path, STORE_DATA_FILE)).blocks * 512;
}

/** Closes the environment (all its databases). */
export async function closeStore(store: Store): Promise<void> {
  await store.env.close();
}

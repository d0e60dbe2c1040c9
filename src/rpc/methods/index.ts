/**
 * The method table: the five read methods of the service, their companions, receipts, and the polling filters.
 *
 * How the files here are named: a method with a file of its own is named after it (eth_getLogs.ts);
 * methods that share their parsing or rendering live in one file named for the family they form
 * (blockCounts.ts, filters.ts, nodeStatus.ts, receipts.ts); code several method files share that is
 * no method is named for what it does (blockLookup.ts).
 */
import type { RpcMethod } from '../method.js';
import {
  eth_getBlockTransactionCountByHash,
  eth_getBlockTransactionCountByNumber,
  eth_getUncleCountByBlockHash,
  eth_getUncleCountByBlockNumber,
} from './blockCounts.js';
import { eth_getBlockByHash } from './eth_getBlockByHash.js';
import { eth_getBlockByNumber } from './eth_getBlockByNumber.js';
import { eth_getLogs } from './eth_getLogs.js';
import { eth_getStorageAt } from './eth_getStorageAt.js';
import { eth_getTransactionByBlockHashAndIndex } from './eth_getTransactionByBlockHashAndIndex.js';
import { eth_getTransactionByBlockNumberAndIndex } from './eth_getTransactionByBlockNumberAndIndex.js';
import { eth_getTransactionByHash } from './eth_getTransactionByHash.js';
import {
  eth_getFilterChanges,
  eth_getFilterLogs,
  eth_newBlockFilter,
  eth_newFilter,
  eth_uninstallFilter,
} from './filters.js';
import { eth_blockNumber, eth_chainId, eth_syncing, net_version, web3_clientVersion } from './nodeStatus.js';
import { eth_getBlockReceipts, eth_getTransactionReceipt } from './receipts.js';

/** Every served method by name. */
export const METHODS: ReadonlyMap<string, RpcMethod> = new Map<string, RpcMethod>([
  ['eth_getStorageAt', eth_getStorageAt],
  ['eth_getLogs', eth_getLogs],
  ['eth_getTransactionByBlockNumberAndIndex', eth_getTransactionByBlockNumberAndIndex],
  ['eth_getBlockByNumber', eth_getBlockByNumber],
  ['eth_getTransactionByHash', eth_getTransactionByHash],
  ['eth_chainId', eth_chainId],
  ['net_version', net_version],
  ['eth_blockNumber', eth_blockNumber],
  ['web3_clientVersion', web3_clientVersion],
  ['eth_getBlockByHash', eth_getBlockByHash],
  ['eth_getTransactionByBlockHashAndIndex', eth_getTransactionByBlockHashAndIndex],
  ['eth_getBlockTransactionCountByNumber', eth_getBlockTransactionCountByNumber],
  ['eth_getBlockTransactionCountByHash', eth_getBlockTransactionCountByHash],
  ['eth_getUncleCountByBlockNumber', eth_getUncleCountByBlockNumber],
  ['eth_getUncleCountByBlockHash', eth_getUncleCountByBlockHash],
  ['eth_getTransactionReceipt', eth_getTransactionReceipt],
  ['eth_getBlockReceipts', eth_getBlockReceipts],
  ['eth_syncing', eth_syncing],
  ['eth_newFilter', eth_newFilter],
  ['eth_newBlockFilter', eth_newBlockFilter],
  ['eth_getFilterChanges', eth_getFilterChanges],
  ['eth_getFilterLogs', eth_getFilterLogs],
  ['eth_uninstallFilter', eth_uninstallFilter],
]);

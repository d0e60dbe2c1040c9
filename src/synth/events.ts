/**
 * The events the synthetic chain emits, with their real Solidity signatures: topic0 is
 * keccak256(signature), indexed arguments become topics, the rest ABI words of data.
 */
import { keccak256 } from '../chain/keccak.js';

/** keccak256 of an event signature: the topic0 of a non-anonymous event. */
export function eventTopic(signature: string): Uint8Array {
  return keccak256(new Uint8Array(Buffer.from(signature, 'utf8')));
}

/** ERC-20 Transfer(address indexed from, address indexed to, uint256 value): the hottest topic on mainnet. */
export const TRANSFER_TOPIC = eventTopic('Transfer(address,address,uint256)');
/** ERC-20 Approval(address indexed owner, address indexed spender, uint256 value). */
export const APPROVAL_TOPIC = eventTopic('Approval(address,address,uint256)');
/**
 * Uniswap V2 Swap(address indexed sender, uint amount0In, uint amount1In, uint amount0Out, uint amount1Out, address
 * indexed to).
 */
export const SWAP_TOPIC = eventTopic('Swap(address,uint256,uint256,uint256,uint256,address)');
/** Uniswap V2 Sync(uint112 reserve0, uint112 reserve1). */
export const SYNC_TOPIC = eventTopic('Sync(uint112,uint112)');
/** WETH9 Deposit(address indexed dst, uint wad). */
export const DEPOSIT_TOPIC = eventTopic('Deposit(address,uint256)');
/** WETH9 Withdrawal(address indexed src, uint wad). */
export const WITHDRAWAL_TOPIC = eventTopic('Withdrawal(address,uint256)');
/** OpenZeppelin Ownable OwnershipTransferred(address indexed previousOwner, address indexed newOwner). */
export const OWNERSHIP_TRANSFERRED_TOPIC = eventTopic('OwnershipTransferred(address,address)');
/**
 * Chainlink AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt): the rare contract's
 * event.
 */
export const ANSWER_UPDATED_TOPIC = eventTopic('AnswerUpdated(int256,uint256,uint256)');

/** How a custom contract's event is shaped: topic0 (none when anonymous), indexed topics, data words. */
export interface CustomEvent {
  /** The Solidity signature, or undefined for an anonymous event (no topic0). */
  signature: string | undefined;
  topic0: Uint8Array | undefined;
  /** Indexed arguments after topic0; 0..3 (0..4 for anonymous events). */
  indexed: number;
  /** Which indexed arguments are addresses (left-padded to 32 bytes); the others are random words. */
  addressTopics: boolean[];
  /** Data length in 32-byte words, as [min, max]. */
  words: [number, number];
}

function custom(signature: string | undefined, addressTopics: boolean[], words: [number, number]): CustomEvent {
  return {
    signature,
    topic0: signature === undefined ? undefined : eventTopic(signature),
    indexed: addressTopics.length,
    addressTopics,
    words,
  };
}

/**
 * Events of the long tail of contracts: NFTs, other DEXes, oracles, bridges, access control,
 * vaults, marketplaces, and anonymous events (no topic0), with 0-4 topics and up to ~20 data words.
 */
export const CUSTOM_EVENTS: readonly CustomEvent[] = [
  custom('Transfer(address,address,uint256)', [true, true, false], [0, 0]),
  custom('TransferSingle(address,address,address,uint256,uint256)', [true, true, true], [2, 2]),
  custom('TransferBatch(address,address,address,uint256[],uint256[])', [true, true, true], [6, 14]),
  custom('Swap(address,address,int256,int256,uint160,uint128,int24)', [true, true], [5, 5]),
  custom('AnswerUpdated(int256,uint256,uint256)', [false, false], [1, 1]),
  custom('RoleGranted(bytes32,address,address)', [false, true, true], [0, 0]),
  custom('Upgraded(address)', [true], [0, 0]),
  custom('Paused(address)', [], [1, 1]),
  custom('LogMessagePublished(address,uint64,uint32,bytes,uint8)', [true], [6, 12]),
  custom(
    'OrderFulfilled(bytes32,address,address,address,' +
      '(uint8,address,uint256,uint256)[],(uint8,address,uint256,uint256,address)[])',
    [true, true],
    [14, 22],
  ),
  custom('Deposit(address,address,uint256,uint256)', [true, true], [2, 2]),
  custom('Mint(address,uint256,uint256)', [true], [2, 2]),
  custom('Burn(address,uint256,uint256,address)', [true, true], [2, 2]),
  custom(undefined, [], [1, 4]),
  custom(undefined, [false, true], [2, 6]),
];

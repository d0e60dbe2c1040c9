/**
 * Keccak-256, Ethereum's hash (the original Keccak padding, not NIST SHA3-256). The Keccak-f[1600]
 * permutation runs as a small WebAssembly function over 64-bit lanes, emitted byte by byte below
 * (no toolchain, no binary blob): it is several times faster than JavaScript over 32-bit halves,
 * and hashing (transactions, headers, bloom bits, storage slots) dominates ingest.
 * test/unit/chain/keccakReference.test.ts checks it against @noble/hashes.
 */

/** Bytes absorbed per permutation (1600 − 2·256 bits). */
const RATE = 136;
/** Where the input blocks start in the module's memory (the state is at 0, the round constants at 256). */
const INPUT = 1024;
/** Blocks that fit in one page of memory after INPUT. */
const MAX_BLOCKS = Math.floor((65536 - INPUT) / RATE);

const ROUND_CONSTANTS = [
  0x0000000000000001n,
  0x0000000000008082n,
  0x800000000000808an,
  0x8000000080008000n,
  0x000000000000808bn,
  0x0000000080000001n,
  0x8000000080008081n,
  0x8000000000008009n,
  0x000000000000008an,
  0x0000000000000088n,
  0x0000000080008009n,
  0x000000008000000an,
  0x000000008000808bn,
  0x800000000000008bn,
  0x8000000000008089n,
  0x8000000000008003n,
  0x8000000000008002n,
  0x8000000000000080n,
  0x000000000000800an,
  0x800000008000000an,
  0x8000000080008081n,
  0x8000000000008080n,
  0x0000000080000001n,
  0x8000000080008008n,
];

/** Rotation offsets r[x][y] of the rho step. */
const RHO = [
  [0, 36, 3, 41, 18],
  [1, 44, 10, 45, 2],
  [62, 6, 43, 15, 61],
  [28, 55, 25, 21, 56],
  [27, 20, 39, 8, 14],
];

const OP = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i64Load: 0x29,
  i64Store: 0x37,
  i32Const: 0x41,
  i64Const: 0x42,
  i32Eqz: 0x45,
  i32LtU: 0x49,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Shl: 0x74,
  i64And: 0x83,
  i64Xor: 0x85,
  i64Rotl: 0x89,
  void: 0x40,
} as const;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

/** Locals of `absorb`: 0 blocks, 1 round, 2 block pointer, 3..27 lanes a[x + 5y], 28..52 b, 53..57 c, 58 d. */
const BLOCKS = 0;
const ROUND = 1;
const PTR = 2;
const A = 3;
const B = 28;
const C = 53;
const D = 58;

function localGet(code: number[], local: number): void {
  code.push(OP.localGet, local);
}

function localSet(code: number[], local: number): void {
  code.push(OP.localSet, local);
}

function i32Const(code: number[], value: number): void {
  code.push(OP.i32Const, ...uleb(value));
}

/** A load or store with 8-byte alignment at a constant `offset`. */
function memory64(code: number[], op: number, offset: number): void {
  code.push(op, 3, ...uleb(offset));
}

/** Loads the 25 state lanes from memory into a[]. */
function emitLoadState(code: number[]): void {
  for (let i = 0; i < 25; i++) {
    i32Const(code, 0);
    memory64(code, OP.i64Load, 8 * i);
    localSet(code, A + i);
  }
}

/** XORs the block at the block pointer into the first RATE / 8 lanes. */
function emitAbsorbBlock(code: number[]): void {
  for (let i = 0; i < RATE / 8; i++) {
    localGet(code, A + i);
    localGet(code, PTR);
    memory64(code, OP.i64Load, 8 * i);
    code.push(OP.i64Xor);
    localSet(code, A + i);
  }
}

/** Theta: column parities c[x], then d = c[x-1] ^ rotl(c[x+1], 1) XORed into column x. */
function emitTheta(code: number[]): void {
  for (let x = 0; x < 5; x++) {
    localGet(code, A + x);
    for (let y = 1; y < 5; y++) {
      localGet(code, A + x + 5 * y);
      code.push(OP.i64Xor);
    }
    localSet(code, C + x);
  }
  for (let x = 0; x < 5; x++) {
    localGet(code, C + ((x + 4) % 5));
    localGet(code, C + ((x + 1) % 5));
    code.push(OP.i64Const, 1, OP.i64Rotl, OP.i64Xor);
    localSet(code, D);
    for (let y = 0; y < 5; y++) {
      localGet(code, A + x + 5 * y);
      localGet(code, D);
      code.push(OP.i64Xor);
      localSet(code, A + x + 5 * y);
    }
  }
}

/** Rho and pi: each lane rotated by r[x][y] into b[y][2x + 3y]. */
function emitRhoPi(code: number[]): void {
  for (let x = 0; x < 5; x++) {
    for (let y = 0; y < 5; y++) {
      localGet(code, A + x + 5 * y);
      code.push(OP.i64Const, RHO[x]![y]!, OP.i64Rotl);
      localSet(code, B + y + 5 * ((2 * x + 3 * y) % 5));
    }
  }
}

/** Chi: a[x][y] = b[x][y] ^ (~b[x+1][y] & b[x+2][y]). */
function emitChi(code: number[]): void {
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 5; x++) {
      localGet(code, B + ((x + 1) % 5) + 5 * y);
      code.push(OP.i64Const, 0x7f, OP.i64Xor);
      localGet(code, B + ((x + 2) % 5) + 5 * y);
      code.push(OP.i64And);
      localGet(code, B + x + 5 * y);
      code.push(OP.i64Xor);
      localSet(code, A + x + 5 * y);
    }
  }
}

/** Iota (a[0] ^= the round's constant, read from memory at 256), then the next round while round < 24. */
function emitIotaAndNextRound(code: number[]): void {
  localGet(code, A);
  localGet(code, ROUND);
  i32Const(code, 3);
  code.push(OP.i32Shl);
  memory64(code, OP.i64Load, 256);
  code.push(OP.i64Xor);
  localSet(code, A);
  localGet(code, ROUND);
  i32Const(code, 1);
  code.push(OP.i32Add, OP.localTee, ROUND);
  i32Const(code, 24);
  code.push(OP.i32LtU, OP.brIf, 0, OP.end);
}

/** Moves the block pointer to the next block, counts the block done, and loops. */
function emitNextBlock(code: number[]): void {
  localGet(code, PTR);
  i32Const(code, RATE);
  code.push(OP.i32Add);
  localSet(code, PTR);
  localGet(code, BLOCKS);
  i32Const(code, 1);
  code.push(OP.i32Sub);
  localSet(code, BLOCKS);
  code.push(OP.br, 0, OP.end, OP.end);
}

/** Stores the 25 lanes back into the state in memory. */
function emitStoreState(code: number[]): void {
  for (let i = 0; i < 25; i++) {
    i32Const(code, 0);
    localGet(code, A + i);
    memory64(code, OP.i64Store, 8 * i);
  }
}

/**
 * Emits `absorb(blocks: i32)`: for each 136-byte block at INPUT, XOR it into the state and run the
 * 24 rounds, fully unrolled within a round (the code runs once, at load; the module it emits is the hot path).
 */
function absorbFunction(): number[] {
  const code: number[] = [];
  emitLoadState(code);
  i32Const(code, INPUT);
  localSet(code, PTR);
  code.push(OP.block, OP.void, OP.loop, OP.void);
  localGet(code, BLOCKS);
  code.push(OP.i32Eqz, OP.brIf, 1);
  emitAbsorbBlock(code);
  i32Const(code, 0);
  localSet(code, ROUND);
  code.push(OP.loop, OP.void);
  emitTheta(code);
  emitRhoPi(code);
  emitChi(code);
  emitIotaAndNextRound(code);
  emitNextBlock(code);
  emitStoreState(code);
  code.push(OP.end);
  const locals = [2, 2, 0x7f, 56, 0x7e];
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

/** The part of the WebAssembly API used here (the project's TypeScript lib does not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: object };
}

function instantiate(): { memory: Uint8Array; absorb: (blocks: number) => void } {
  const name = (s: string) => [...uleb(s.length), ...Buffer.from(s, 'latin1')];
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [1, 0x60, 1, 0x7f, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0, 1]),
    ...section(7, [2, ...name('memory'), 2, 0, ...name('absorb'), 0, 0]),
    ...section(10, [1, ...absorbFunction()]),
  ];
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const exports = new wasm.Instance(new wasm.Module(new Uint8Array(bytes))).exports as {
    memory: { buffer: ArrayBuffer };
    absorb: (blocks: number) => void;
  };
  const memory = new Uint8Array(exports.memory.buffer);
  const view = new DataView(exports.memory.buffer);
  ROUND_CONSTANTS.forEach((rc, i) => view.setBigUint64(256 + 8 * i, rc, true));
  return { memory, absorb: exports.absorb };
}

const { memory, absorb } = instantiate();

/** Ethereum's keccak-256 of `data`. */
export function keccak256(data: Uint8Array): Uint8Array {
  memory.fill(0, 0, 200);
  let o = 0;
  while (data.length - o >= RATE) {
    const blocks = Math.min(MAX_BLOCKS, Math.floor((data.length - o) / RATE));
    memory.set(data.subarray(o, o + blocks * RATE), INPUT);
    absorb(blocks);
    o += blocks * RATE;
  }
  const rest = data.length - o;
  memory.fill(0, INPUT + rest, INPUT + RATE);
  memory.set(data.subarray(o), INPUT);
  memory[INPUT + rest]! ^= 0x01;
  memory[INPUT + RATE - 1]! ^= 0x80;
  absorb(1);
  return memory.slice(0, 32);
}

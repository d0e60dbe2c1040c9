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
  0x0000000000000001n, 0x0000000000008082n, 0x800000000000808an, 0x8000000080008000n, 0x000000000000808bn, 0x0000000080000001n,
  0x8000000080008081n, 0x8000000000008009n, 0x000000000000008an, 0x0000000000000088n, 0x0000000080008009n, 0x000000008000000an,
  0x000000008000808bn, 0x800000000000008bn, 0x8000000000008089n, 0x8000000000008003n, 0x8000000000008002n, 0x8000000000000080n,
  0x000000000000800an, 0x800000008000000an, 0x8000000080008081n, 0x8000000000008080n, 0x0000000080000001n, 0x8000000080008008n,
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
  block: 0x02, loop: 0x03, end: 0x0b, br: 0x0c, brIf: 0x0d, localGet: 0x20, localSet: 0x21, localTee: 0x22,
  i64Load: 0x29, i64Store: 0x37, i32Const: 0x41, i64Const: 0x42, i32Eqz: 0x45, i32LtU: 0x49, i32Add: 0x6a, i32Sub: 0x6b,
  i32Shl: 0x74, i64And: 0x83, i64Xor: 0x85, i64Rotl: 0x89, void: 0x40,
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

/**
 * Emits `absorb(blocks: i32)`: for each 136-byte block at INPUT, XOR it into the state and run the
 * 24 rounds. Locals: 0 blocks, 1 round, 2 block pointer, 3..27 lanes a[x + 5y], 28..52 b, 53..57 c, 58 d.
 */
function absorbFunction(): number[] {
  const BLOCKS = 0, ROUND = 1, PTR = 2, A = 3, B = 28, C = 53, D = 58;
  const code: number[] = [];
  const get = (l: number) => code.push(OP.localGet, l);
  const set = (l: number) => code.push(OP.localSet, l);
  const i32 = (v: number) => code.push(OP.i32Const, ...uleb(v));
  const mem = (op: number, offset: number) => code.push(op, 3, ...uleb(offset));
  for (let i = 0; i < 25; i++) {
    i32(0);
    mem(OP.i64Load, 8 * i);
    set(A + i);
  }
  i32(INPUT);
  set(PTR);
  code.push(OP.block, OP.void, OP.loop, OP.void);
  get(BLOCKS);
  code.push(OP.i32Eqz, OP.brIf, 1);
  for (let i = 0; i < RATE / 8; i++) {
    get(A + i);
    get(PTR);
    mem(OP.i64Load, 8 * i);
    code.push(OP.i64Xor);
    set(A + i);
  }
  i32(0);
  set(ROUND);
  code.push(OP.loop, OP.void);
  for (let x = 0; x < 5; x++) {
    get(A + x);
    for (let y = 1; y < 5; y++) {
      get(A + x + 5 * y);
      code.push(OP.i64Xor);
    }
    set(C + x);
  }
  for (let x = 0; x < 5; x++) {
    get(C + ((x + 4) % 5));
    get(C + ((x + 1) % 5));
    code.push(OP.i64Const, 1, OP.i64Rotl, OP.i64Xor);
    set(D);
    for (let y = 0; y < 5; y++) {
      get(A + x + 5 * y);
      get(D);
      code.push(OP.i64Xor);
      set(A + x + 5 * y);
    }
  }
  for (let x = 0; x < 5; x++) {
    for (let y = 0; y < 5; y++) {
      get(A + x + 5 * y);
      code.push(OP.i64Const, RHO[x]![y]!, OP.i64Rotl);
      set(B + y + 5 * ((2 * x + 3 * y) % 5));
    }
  }
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 5; x++) {
      get(B + ((x + 1) % 5) + 5 * y);
      code.push(OP.i64Const, 0x7f, OP.i64Xor);
      get(B + ((x + 2) % 5) + 5 * y);
      code.push(OP.i64And);
      get(B + x + 5 * y);
      code.push(OP.i64Xor);
      set(A + x + 5 * y);
    }
  }
  get(A);
  get(ROUND);
  i32(3);
  code.push(OP.i32Shl);
  mem(OP.i64Load, 256);
  code.push(OP.i64Xor);
  set(A);
  get(ROUND);
  i32(1);
  code.push(OP.i32Add, OP.localTee, ROUND);
  i32(24);
  code.push(OP.i32LtU, OP.brIf, 0, OP.end);
  get(PTR);
  i32(RATE);
  code.push(OP.i32Add);
  set(PTR);
  get(BLOCKS);
  i32(1);
  code.push(OP.i32Sub);
  set(BLOCKS);
  code.push(OP.br, 0, OP.end, OP.end);
  for (let i = 0; i < 25; i++) {
    i32(0);
    get(A + i);
    mem(OP.i64Store, 8 * i);
  }
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
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 1, 0x7f, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0, 1]),
    ...section(7, [2, ...name('memory'), 2, 0, ...name('absorb'), 0, 0]),
    ...section(10, [1, ...absorbFunction()]),
  ];
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const exports = new wasm.Instance(new wasm.Module(new Uint8Array(bytes))).exports as { memory: { buffer: ArrayBuffer }; absorb: (blocks: number) => void };
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

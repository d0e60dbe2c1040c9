/** An RLP item: a byte string or a list of items. */
export type RlpItem = Uint8Array | RlpItem[];

function lengthPrefix(length: number, offset: number): Uint8Array {
  if (length < 56) return Uint8Array.of(offset + length);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Uint8Array.of(offset + 55 + bytes.length, ...bytes);
}

/** Encodes an RLP item (Ethereum's recursive length prefix). */
export function rlpEncode(item: RlpItem): Uint8Array {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0]! < 0x80) return item;
    return Buffer.concat([lengthPrefix(item.length, 0x80), item]);
  }
  const body = Buffer.concat(item.map(rlpEncode));
  return Buffer.concat([lengthPrefix(body.length, 0xc0), body]);
}

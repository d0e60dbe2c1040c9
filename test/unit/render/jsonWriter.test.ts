/**
 * The JSON byte writer (render/jsonWriter.ts): hex digits, leading-zero digits and repeated pieces
 * equal what Node's own encoders write, for any bytes and lengths (fast-check properties).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { JsonWriter } from '#src/render/jsonWriter.js';

/** What `write` wrote into a fresh writer of `capacity` bytes (small: the writes also grow it), as text. */
function written(write: (out: JsonWriter) => void, capacity = 8): string {
  const out = new JsonWriter(capacity);
  write(out);
  return Buffer.from(out.view()).toString('latin1');
}

test('hex() writes two lower-case digits a byte, for any slice of any bytes', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(), fc.nat(), (bytes, a, b) => {
      const start = bytes.length === 0 ? 0 : a % (bytes.length + 1);
      const end = start + (bytes.length === 0 ? 0 : b % (bytes.length - start + 1));
      assert.equal(
        written((out) => out.hex(bytes, start, end)),
        Buffer.from(bytes.subarray(start, end)).toString('hex'),
      );
    }),
  );
});

test('zeros() and repeat() append what they name after what is written', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 1, maxLength: 100 }),
      fc.nat(80),
      fc.nat(),
      fc.nat(),
      (bytes, zeros, a, b) => {
        const text = Buffer.from(bytes).toString('hex');
        const start = a % text.length;
        const count = b % (text.length - start + 1);
        const expected = text + '0'.repeat(zeros) + text.slice(start, start + count);
        assert.equal(
          written((out) => {
            out.hex(bytes, 0, bytes.length);
            out.zeros(zeros);
            out.repeat(start, count);
          }),
          expected,
        );
      },
    ),
  );
});

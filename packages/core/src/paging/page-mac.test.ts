import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { PageMac } from './page-mac.js';

const reference = (key: Uint8Array, message: string) =>
  createHmac('sha256', key).update(message).digest('base64url');

describe('PageMac is HMAC-SHA256', () => {
  test('the same signature as createHmac, for any key (shorter or longer than a block) and message', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.array(fc.string({ unit: 'grapheme', maxLength: 400 }), { minLength: 1, maxLength: 4 }),
        (key, messages) => {
          // One PageMac for several messages: its reused buffers carry nothing from one to the next.
          const mac = new PageMac(Buffer.from(key));
          for (const message of messages) {
            const expected = reference(key, message);
            expect(mac.sign(message)).toBe(expected);
            expect(mac.verify(message, expected)).toBe(true);
          }
        },
      ),
    );
  });

  test('keys at the block size and either side of it', () => {
    for (const length of [1, 32, 63, 64, 65, 128]) {
      const key = Buffer.alloc(length, 0xa7);
      expect(new PageMac(key).sign('weft-page\nissue\nabc')).toBe(reference(key, 'weft-page\nissue\nabc'));
    }
  });

  test('a long message after a short one, and a short one after it', () => {
    const mac = new PageMac(Buffer.from('k'));
    const long = 'é'.repeat(70_000);
    for (const message of ['a', long, 'b'])
      expect(mac.sign(message)).toBe(reference(Buffer.from('k'), message));
  });

  test('refuses a signature of another message, of another key, cut short, lengthened or not base64url', () => {
    const mac = new PageMac(Buffer.from('page-key'));
    const good = mac.sign('weft-page\nissue\nabc');
    expect(mac.verify('weft-page\nissue\nabd', good)).toBe(false);
    expect(
      mac.verify('weft-page\nissue\nabc', new PageMac(Buffer.from('other')).sign('weft-page\nissue\nabc')),
    ).toBe(false);
    expect(mac.verify('weft-page\nissue\nabc', good.slice(0, -1))).toBe(false);
    expect(mac.verify('weft-page\nissue\nabc', `${good}AAAA`)).toBe(false);
    expect(mac.verify('weft-page\nissue\nabc', '')).toBe(false);
    expect(mac.verify('weft-page\nissue\nabc', '!'.repeat(43))).toBe(false);
    // Every single changed character of the signature.
    for (let i = 0; i < good.length; i += 1) {
      const changed = `${good.slice(0, i)}${good[i] === 'A' ? 'B' : 'A'}${good.slice(i + 1)}`;
      // The last character carries two bits past the digest: some changes there decode the same.
      if (Buffer.from(changed, 'base64url').equals(Buffer.from(good, 'base64url'))) continue;
      expect(mac.verify('weft-page\nissue\nabc', changed)).toBe(false);
    }
  });
});

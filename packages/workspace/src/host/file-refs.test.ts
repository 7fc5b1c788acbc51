// Which file a reference names across syncs: its __file-key, else the URL without the parameters
// that signed URLs change; app://resource references keyed by their sorted query.
import { describe, expect, it } from 'vitest';
import { describeUrl, parseFileRefs } from './file-refs.js';

describe('parseFileRefs', () => {
  it('keys a URL by __file-key and removes that parameter from the address fetched', () => {
    const { refs } = parseFileRefs(['https://cdn.example/a.pdf?sig=1&__file-key=k1']);
    expect(refs).toEqual([{ key: 'k1', url: 'https://cdn.example/a.pdf?sig=1' }]);
  });

  it('without a key, leaves signature parameters out of the key but keeps the others', () => {
    const one = parseFileRefs(['https://s3.example/b.png?X-Amz-Signature=aa&X-Amz-Expires=60&v=2#top']);
    const two = parseFileRefs(['https://s3.example/b.png?X-Amz-Signature=bb&X-Amz-Expires=90&v=2']);
    expect(one.refs[0]?.key).toBe('https://s3.example/b.png?v=2');
    expect(two.refs[0]?.key).toBe(one.refs[0]?.key);
    expect(parseFileRefs(['https://s3.example/b.png?v=3']).refs[0]?.key).not.toBe(one.refs[0]?.key);
  });

  it('reads app://resource references, keyed by their sorted query, with the query as params', () => {
    const a = parseFileRefs(['app://resource?name=x.txt&folder=f']).refs[0];
    const b = parseFileRefs(['app://resource?folder=f&name=x.txt']).refs[0];
    expect(a?.resource).toEqual({ name: 'x.txt', folder: 'f' });
    expect(a?.key).toBe(b?.key);
    expect(parseFileRefs(['app://resource?name=y&__file-key=k']).refs[0]).toMatchObject({
      key: 'k',
      resource: { name: 'y' },
    });
  });

  it('takes objects with url and name, a single reference, and counts what is not a reference', () => {
    expect(parseFileRefs({ url: 'https://h/x', name: 'X.pdf' }).refs).toEqual([
      { key: 'https://h/x', url: 'https://h/x', name: 'X.pdf' },
    ]);
    const mixed = parseFileRefs([
      'https://h/x',
      'not a url',
      42,
      'ftp://h/y',
      'app://other?a=1',
      'https://h/x',
    ]);
    expect(mixed.refs).toHaveLength(1);
    expect(mixed.invalid).toBe(4);
    expect(parseFileRefs(null)).toEqual({ refs: [], invalid: 0 });
    expect(parseFileRefs([])).toEqual({ refs: [], invalid: 0 });
  });

  it('describes a URL without its query, which may hold a token', () => {
    expect(describeUrl('https://h/p/f.txt?token=secret')).toBe('https://h/p/f.txt');
    expect(describeUrl('app://resource?name=a')).toBe('app://resource');
  });
});

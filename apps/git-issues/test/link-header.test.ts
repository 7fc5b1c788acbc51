import { describe, expect, it } from 'vitest';
import { linkOf } from '../src/link-header.js';

describe('git-issues: Link headers', () => {
  it('finds a relation among several, and nothing when it is absent', () => {
    const header =
      '<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=5>; rel="last"';
    expect(linkOf(header, 'next')).toBe('https://api.github.com/repositories/1/issues?page=2');
    expect(linkOf(header, 'last')).toBe('https://api.github.com/repositories/1/issues?page=5');
    expect(linkOf(header, 'prev')).toBeUndefined();
    expect(linkOf(null, 'next')).toBeUndefined();
    expect(linkOf('<https://x.example/a?b=1>; rel="prev next"', 'next')).toBe('https://x.example/a?b=1');
  });
});

import { describe, expect, test } from 'vitest';
import { conversionOf } from './convert-value.js';
import { richTextOf } from './rich-text.js';

describe('rich text from a value', () => {
  test('a list of HTML parts is one document, in order', () => {
    expect(richTextOf(['<p><b>Ann:</b></p>hello', '<p><b>Bo:</b></p>reply'], 'html')).toBe(
      '<p><b>Ann:</b></p>hello\n<p><b>Bo:</b></p>reply',
    );
  });

  test('Markdown parts become paragraphs; null parts are skipped', () => {
    expect(richTextOf(['# One', null, '*two*'], 'md')).toBe('# One\n\n*two*');
  });

  test('text stays as it is; nothing is an empty document', () => {
    expect(richTextOf('<p>x</p>', 'html')).toBe('<p>x</p>');
    expect(richTextOf(42, 'md')).toBe('42');
    expect(richTextOf(null, 'md')).toBe('');
    expect(richTextOf(undefined, 'html')).toBe('');
    expect(richTextOf([], 'html')).toBe('');
  });

  test('array[text] with subType html or md is rich text; other lists stay lists', () => {
    expect(conversionOf({ type: 'array[text]', subType: 'html' })).toBe('rich');
    expect(conversionOf({ type: 'array[text]', subType: 'md' })).toBe('rich');
    expect(conversionOf({ type: 'array[text]' })).toBe('list');
    expect(conversionOf({ type: 'array[text]', subType: 'multi-select' })).toBe('list');
    expect(conversionOf({ type: 'array[text]', subType: 'file' })).toBe('files');
  });
});

// Throughput of parseDateRange against chrono-node's casual parser on the same phrases.
// Prints one line: `bench date-range: weft 1.23M parses/s, chrono-node casual 0.12M parses/s, ratio 10.25`.
import { casual } from 'chrono-node';
import { parseDateRange } from '../src/index.js';

const NOW = '2026-11-22T15:30:00';
const REFERENCE = new Date(2026, 10, 22, 15, 30);

// Every statement kind, every unit, literal dates in each spelling.
const PHRASES = [
  'today',
  'yesterday',
  '22-11-2026',
  '22 November 2026',
  '5-nov-2026',
  'this week',
  'last month',
  'last 3 months',
  'last 7 days',
  'last 2 weeks',
  'this quarter',
  'last year',
  'previous month',
  'previous 2 quarters',
  'between 1-11-2026 and 15-11-2026',
  'between 3 months ago and 2 months ago',
  'between last month and today',
  'from 1-10-2026',
  'to yesterday',
  'from previous week to today',
];

const ROUNDS = 3;
const ROUND_MS = 700;
const WARMUP_MS = 500;

let sink = 0;

function run(parse: (phrase: string) => unknown, ms: number): { count: number; ms: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  let count = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    for (const phrase of PHRASES) {
      if (parse(phrase) !== undefined) sink++;
    }
    count += PHRASES.length;
    elapsed = performance.now() - start;
  } while (elapsed < ms);
  return { count, ms: elapsed };
}

const weft = (phrase: string) => parseDateRange(phrase, { now: NOW });
const chrono = (phrase: string) => casual.parseDate(phrase, REFERENCE);

run(weft, WARMUP_MS);
run(chrono, WARMUP_MS);

const totals = { weft: { count: 0, ms: 0 }, chrono: { count: 0, ms: 0 } };
for (let round = 0; round < ROUNDS; round++) {
  // Alternate which side goes first so neither always runs on a hotter or cooler machine.
  const order = round % 2 === 0 ? (['weft', 'chrono'] as const) : (['chrono', 'weft'] as const);
  for (const side of order) {
    const result = run(side === 'weft' ? weft : chrono, ROUND_MS);
    totals[side].count += result.count;
    totals[side].ms += result.ms;
  }
}

const perSecond = (total: { count: number; ms: number }) => (total.count / total.ms) * 1000;
const weftRate = perSecond(totals.weft);
const chronoRate = perSecond(totals.chrono);
const millions = (rate: number) => `${(rate / 1e6).toFixed(2)}M`;
console.log(
  `bench date-range: weft ${millions(weftRate)} parses/s, chrono-node casual ${millions(chronoRate)} parses/s, ratio ${(weftRate / chronoRate).toFixed(2)}`,
);
if (sink === 0) console.error('bench date-range: nothing parsed');

// The embedded library: 12 genres, 300 authors and 3,000 books (plus 40 deleted ones), generated
// deterministically from a fixed seed and a fixed reference date. Every process, on every
// machine, builds exactly the same data, so any replica can serve any page of a sync.

/** "Now" for the embedded data: `updatedAt` and deletions fall in the 60 days before it. */
export const REFERENCE_DATE = new Date('2026-03-01T00:00:00.000Z');

export const AUTHOR_COUNT = 300;
export const BOOK_COUNT = 3_000;
export const DELETED_BOOK_COUNT = 40;
const SEED = 0x0b00c5;
const DAY_MS = 86_400_000;
const HISTORY_DAYS = 60;

export interface Genre {
  id: string;
  name: string;
  description: string;
}

export interface Author {
  id: string;
  name: string;
  born: number;
  country: string;
  /** The genre most of the author's books are in. */
  genre: string;
  bio: string;
  website: string;
  updatedAt: string;
}

export interface Book {
  id: string;
  title: string;
  isbn: string;
  authorId: string;
  genreId: string;
  /** `YYYY-MM-DD`. */
  published: string;
  pages: number;
  rating: number;
  tags: string[];
  cover: string;
  description: string;
  updatedAt: string;
}

export interface Deletion {
  id: string;
  deletedAt: string;
}

export interface Dataset {
  genres: Genre[];
  authors: Author[];
  /** Sorted by id: the order every listing walks. */
  books: Book[];
  /** Sorted by `deletedAt`. */
  deletions: Deletion[];
}

export const GENRES: readonly Genre[] = [
  { id: 'fantasy', name: 'Fantasy', description: 'Magic, myths and other worlds' },
  { id: 'science-fiction', name: 'Science fiction', description: 'Futures, space and technology' },
  { id: 'mystery', name: 'Mystery', description: 'Detectives and puzzles' },
  { id: 'thriller', name: 'Thriller', description: 'Suspense and danger' },
  { id: 'romance', name: 'Romance', description: 'Love stories' },
  { id: 'historical', name: 'Historical fiction', description: 'Stories set in the past' },
  { id: 'biography', name: 'Biography', description: 'Lives of real people' },
  { id: 'poetry', name: 'Poetry', description: 'Verse and collections' },
  { id: 'horror', name: 'Horror', description: 'Fear and the uncanny' },
  { id: 'travel', name: 'Travel', description: 'Journeys and places' },
  { id: 'philosophy', name: 'Philosophy', description: 'Ideas and arguments' },
  { id: 'children', name: 'Children', description: 'Books for young readers' },
];

export const TAGS = [
  'award-winner',
  'bestseller',
  'classic',
  'debut',
  'series',
  'translated',
  'illustrated',
  'short-stories',
  'book-club',
  'audiobook',
  'signed',
  'first-edition',
] as const;

const FIRST_NAMES = [
  'Ada',
  'Bruno',
  'Clara',
  'Dmitri',
  'Elena',
  'Farid',
  'Greta',
  'Hiro',
  'Ines',
  'Jonas',
  'Kemi',
  'Lars',
  'Maya',
  'Nikolai',
  'Olga',
  'Pedro',
  'Quinn',
  'Rosa',
  'Samir',
  'Tove',
  'Ugo',
  'Vera',
  'Wen',
  'Ximena',
  'Yusuf',
  'Zofia',
];
const LAST_NAMES = [
  'Achebe',
  'Bergman',
  'Castillo',
  'Dubois',
  'Eriksen',
  'Fontaine',
  'Gallo',
  'Haddad',
  'Ivanova',
  'Jansen',
  'Kowalski',
  'Lindqvist',
  'Moreau',
  'Nakamura',
  'Okafor',
  'Petrov',
  'Quiroga',
  'Rossi',
  'Sato',
  'Tanaka',
  'Urquhart',
  'Varga',
  'Weber',
  'Xu',
  'Yilmaz',
  'Zeller',
];
const COUNTRIES = ['FR', 'DE', 'NG', 'JP', 'BR', 'SE', 'IT', 'PL', 'US', 'GB', 'IN', 'MX', 'TR', 'CA'];
const ADJECTIVES = [
  'Silent',
  'Crimson',
  'Hidden',
  'Last',
  'Broken',
  'Golden',
  'Distant',
  'Forgotten',
  'Winter',
  'Burning',
  'Glass',
  'Northern',
  'Secret',
  'Endless',
  'Quiet',
  'Wild',
  'Paper',
  'Iron',
  'Velvet',
  'Hollow',
];
const NOUNS = [
  'River',
  'Garden',
  'Kingdom',
  'Letters',
  'Harbor',
  'Orchard',
  'Machine',
  'Lantern',
  'Mountain',
  'Archive',
  'Compass',
  'Island',
  'Cathedral',
  'Tide',
  'Forest',
  'Mirror',
  'Station',
  'Atlas',
  'Choir',
  'Bridge',
];

/** mulberry32: a small, fast, seeded PRNG returning floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** An ISBN-13 with a correct check digit. */
function isbn13(body12: string): string {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(body12[i]) * (i % 2 === 0 ? 1 : 3);
  return `${body12}${(10 - (sum % 10)) % 10}`;
}

function generate(): Dataset {
  const rnd = seededRandom(SEED);
  const int = (min: number, max: number) => min + Math.floor(rnd() * (max - min + 1));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const recent = () =>
    new Date(REFERENCE_DATE.getTime() - Math.floor(rnd() * HISTORY_DAYS * DAY_MS)).toISOString();

  const authors: Author[] = [];
  for (let n = 1; n <= AUTHOR_COUNT; n++) {
    const name = `${pick(FIRST_NAMES)} ${pick(LAST_NAMES)}`;
    const genre = pick(GENRES);
    const born = int(1900, 1995);
    authors.push({
      id: `a-${pad(n, 3)}`,
      name,
      born,
      country: pick(COUNTRIES),
      genre: genre.id,
      bio: `**${name}** (born ${born}) writes mostly *${genre.name.toLowerCase()}*.`,
      website: `https://authors.bookshelf.example/a-${pad(n, 3)}`,
      updatedAt: recent(),
    });
  }

  const total = BOOK_COUNT + DELETED_BOOK_COUNT;
  const books: Book[] = [];
  for (let n = 1; n <= total; n++) {
    const author = authors[int(0, AUTHOR_COUNT - 1)]!;
    const genreId = rnd() < 0.75 ? author.genre : pick(GENRES).id;
    const title = `The ${pick(ADJECTIVES)} ${pick(NOUNS)}`;
    const publishedMs =
      Date.UTC(1950, 0, 1) + Math.floor(rnd() * (REFERENCE_DATE.getTime() - Date.UTC(1950, 0, 1)));
    const tags = TAGS.filter(() => rnd() < 0.12);
    const id = `b-${pad(n, 4)}`;
    books.push({
      id,
      title,
      isbn: isbn13(`978${pad(int(0, 999_999_999), 9)}`),
      authorId: author.id,
      genreId,
      published: new Date(publishedMs).toISOString().slice(0, 10),
      pages: int(60, 1_200),
      rating: Math.round((1 + rnd() * 4) * 10) / 10,
      tags,
      cover: `https://covers.bookshelf.example/${id}.jpg`,
      description: `# ${title}\n\nA ${genreId.replace('-', ' ')} book by **${author.name}**.`,
      updatedAt: recent(),
    });
  }

  // Take DELETED_BOOK_COUNT books out of the catalog and log when they went.
  const deletedIds = new Set<string>();
  while (deletedIds.size < DELETED_BOOK_COUNT) deletedIds.add(books[int(0, total - 1)]!.id);
  const deletions = [...deletedIds]
    .map((id) => ({ id, deletedAt: recent() }))
    .sort((a, b) => a.deletedAt.localeCompare(b.deletedAt) || a.id.localeCompare(b.id));

  return {
    genres: GENRES.map((g) => ({ ...g })),
    authors,
    books: books.filter((b) => !deletedIds.has(b.id)),
    deletions,
  };
}

let cached: Dataset | undefined;

/** The embedded dataset, built once per process (it is immutable, so this holds no sync state). */
export function dataset(): Dataset {
  cached ??= generate();
  return cached;
}

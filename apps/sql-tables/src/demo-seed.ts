// The embedded demo database: a small lending library. It shows everything the app reads from
// a schema: related tables (foreign keys, a text primary key, a two-column primary key), enums,
// arrays, numbers with a scale, dates, a location, `updated_at` columns for delta sync, a
// soft-delete column (`books.deleted_at`) and a deletions table filled by a trigger (`loans`).
// Times are relative to now(), so a delta sync of "the last day" always has something to show.

export const DEMO_SEED = `
CREATE TYPE book_genre AS ENUM ('Fiction', 'Science', 'History', 'Poetry', 'Children');
CREATE TYPE loan_status AS ENUM ('Borrowed', 'Returned', 'Overdue');

CREATE TABLE authors (
  id serial PRIMARY KEY,
  name text NOT NULL,
  email text,
  born date,
  website text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE authors IS 'People who wrote the books';

CREATE TABLE books (
  id serial PRIMARY KEY,
  title text NOT NULL,
  author_id integer NOT NULL REFERENCES authors (id),
  genre book_genre NOT NULL,
  price numeric(8, 2),
  pages integer,
  published date,
  in_print boolean NOT NULL DEFAULT true,
  tags text[] NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
COMMENT ON COLUMN books.deleted_at IS 'Set instead of deleting the row (soft delete)';

CREATE TABLE members (
  code text PRIMARY KEY,
  name text NOT NULL,
  email text,
  joined date NOT NULL,
  home point,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE loans (
  id serial PRIMARY KEY,
  book_id integer NOT NULL REFERENCES books (id),
  member_code text NOT NULL REFERENCES members (code),
  status loan_status NOT NULL DEFAULT 'Borrowed',
  borrowed_at timestamptz NOT NULL,
  due date NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE favourites (
  member_code text NOT NULL REFERENCES members (code),
  book_id integer NOT NULL REFERENCES books (id),
  since date NOT NULL,
  PRIMARY KEY (member_code, book_id)
);

-- Hard deletes are recorded here, so a delta sync can send them as removals.
CREATE TABLE weft_deletions (
  table_name text NOT NULL,
  row_id text NOT NULL,
  deleted_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX weft_deletions_by_table ON weft_deletions (table_name, deleted_at);

CREATE FUNCTION weft_record_deletion() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO weft_deletions (table_name, row_id) VALUES (TG_TABLE_NAME, OLD.id::text);
  RETURN OLD;
END $$;
CREATE TRIGGER loans_deleted AFTER DELETE ON loans FOR EACH ROW EXECUTE FUNCTION weft_record_deletion();

INSERT INTO authors (name, email, born, website, updated_at) VALUES
  ('Ursula Vance', 'ursula@authors.example', '1929-10-21', 'https://authors.example/vance', now() - interval '40 days'),
  ('Omar Lindqvist', 'omar@authors.example', '1961-03-02', NULL, now() - interval '35 days'),
  ('Mei Tanaka', 'mei@authors.example', '1975-07-14', 'https://authors.example/tanaka', now() - interval '30 days'),
  ('Ada Okafor', NULL, '1988-01-30', NULL, now() - interval '25 days'),
  ('Jonas Brandt', 'jonas@authors.example', '1950-12-09', NULL, now() - interval '3 hours'),
  ('Lucia Ferreira', 'lucia@authors.example', '1992-05-05', 'https://authors.example/ferreira', now() - interval '20 days');

INSERT INTO books (title, author_id, genre, price, pages, published, in_print, tags, updated_at)
SELECT
  'Book ' || i || ': ' || (ARRAY['The Quiet Sea', 'Stars and Dust', 'A Short History', 'Small Verses', 'The Lost Kite'])[1 + i % 5],
  1 + i % 6,
  (ARRAY['Fiction', 'Science', 'History', 'Poetry', 'Children'])[1 + i % 5]::book_genre,
  round((7.5 + i * 1.25)::numeric, 2),
  120 + i * 17,
  date '1990-01-01' + i * 200,
  i % 4 <> 0,
  CASE WHEN i % 3 = 0 THEN ARRAY['classic', 'award'] WHEN i % 3 = 1 THEN ARRAY['new'] ELSE ARRAY[]::text[] END,
  now() - (i || ' days')::interval
FROM generate_series(1, 24) AS i;
-- Two books withdrawn a little while ago (soft delete), one just edited.
UPDATE books SET deleted_at = now() - interval '2 hours', updated_at = now() - interval '2 hours' WHERE id IN (7, 19);
UPDATE books SET price = 9.99, updated_at = now() - interval '1 hour' WHERE id = 3;

INSERT INTO members (code, name, email, joined, home, updated_at)
SELECT
  'M-' || lpad(i::text, 3, '0'),
  (ARRAY['Ines', 'Kofi', 'Lena', 'Marek', 'Noor', 'Olga', 'Pablo', 'Quinn', 'Rosa', 'Sami'])[i],
  lower((ARRAY['Ines', 'Kofi', 'Lena', 'Marek', 'Noor', 'Olga', 'Pablo', 'Quinn', 'Rosa', 'Sami'])[i]) || '@members.example',
  date '2021-01-15' + i * 45,
  point(13.4 + i * 0.01, 52.5 + i * 0.01),
  now() - ((i * 2) || ' days')::interval
FROM generate_series(1, 10) AS i;

INSERT INTO loans (book_id, member_code, status, borrowed_at, due, updated_at)
SELECT
  1 + (i * 7) % 24,
  'M-' || lpad((1 + i % 10)::text, 3, '0'),
  (ARRAY['Borrowed', 'Returned', 'Overdue'])[1 + i % 3]::loan_status,
  now() - ((60 - i) || ' days')::interval,
  (now() - ((60 - i) || ' days')::interval + interval '21 days')::date,
  now() - ((60 - i) || ' days')::interval
FROM generate_series(1, 36) AS i
WHERE 1 + (i * 7) % 24 NOT IN (7, 19);
-- Two loans deleted a moment ago: the trigger records them in weft_deletions.
DELETE FROM loans WHERE id IN (2, 5);

INSERT INTO favourites (member_code, book_id, since)
SELECT 'M-' || lpad((1 + i % 10)::text, 3, '0'), 1 + (i * 5) % 24, date '2024-01-01' + i * 9
FROM generate_series(1, 18) AS i
WHERE 1 + (i * 5) % 24 NOT IN (7, 19)
ON CONFLICT DO NOTHING;
`;

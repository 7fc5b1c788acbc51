// A cheap question to the catalog: "has anything the app reads about these schemas' tables
// changed?" Every catalog row Postgres rewrites gets a new transaction id (`xmin`), and a row
// that goes away leaves the set; so a hash of the (oid, xmin) of every row the catalog query
// reads is a fingerprint of its answer. Rows the planner updates in place (row estimates after
// ANALYZE) keep their xmin, which is right: the types do not depend on them.
// The fingerprint covers, for the account's schemas: the tables and the reader's SELECT right on
// each, their columns, the types of those columns (through domains and array elements, with
// enum labels), their constraints and the comments on tables and columns; and the current user.

/** `$1` is the account's schemas (`text[]`); answers one row with a hex `fingerprint`. */
export const FINGERPRINT = `
WITH RECURSIVE cls AS (
  SELECT c.oid, c.xmin::text AS x, has_table_privilege(c.oid, 'SELECT') AS can
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname::text = ANY($1::text[]) AND c.relkind IN ('r', 'p')
), att AS (
  SELECT a.attrelid, a.attnum, a.xmin::text AS x, a.atttypid
  FROM pg_attribute a WHERE a.attrelid IN (SELECT oid FROM cls) AND a.attnum > 0
), typ(oid) AS (
  SELECT atttypid FROM att
  UNION
  SELECT v.oid FROM typ JOIN pg_type t ON t.oid = typ.oid
    CROSS JOIN LATERAL (VALUES (t.typbasetype), (t.typelem)) AS v(oid) WHERE v.oid <> 0
)
SELECT encode(sha256(convert_to(string_agg(part, ',' ORDER BY part), 'UTF8')), 'hex') AS fingerprint FROM (
  SELECT 'u' || current_user::text AS part
  UNION ALL SELECT 'c' || oid || ':' || x || ':' || can FROM cls
  UNION ALL SELECT 'a' || attrelid || '.' || attnum || ':' || x FROM att
  UNION ALL SELECT 't' || t.oid || ':' || t.xmin FROM pg_type t WHERE t.oid IN (SELECT oid FROM typ)
  UNION ALL SELECT 'e' || e.oid || ':' || e.xmin FROM pg_enum e WHERE e.enumtypid IN (SELECT oid FROM typ)
  UNION ALL SELECT 'k' || k.oid || ':' || k.xmin FROM pg_constraint k WHERE k.conrelid IN (SELECT oid FROM cls)
  UNION ALL SELECT 'd' || d.objoid || '.' || d.objsubid || ':' || d.xmin FROM pg_description d
    WHERE d.classoid = 'pg_catalog.pg_class'::regclass AND d.objoid IN (SELECT oid FROM cls)
) parts`;

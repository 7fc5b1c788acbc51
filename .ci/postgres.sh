#!/usr/bin/env bash
# Installs (when missing) and starts Debian's PostgreSQL, and makes a role and database for the
# tests: postgres://weft:weft@127.0.0.1:5432/weft_test. Idempotent and quick when already there.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
if ! command -v pg_lsclusters >/dev/null 2>&1 || [ -z "$(pg_lsclusters -h 2>/dev/null)" ]; then
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
fi
if [ -z "$(pg_lsclusters -h 2>/dev/null)" ]; then
  ver=$(ls /usr/lib/postgresql | sort -n | tail -1)
  pg_createcluster "$ver" main >/dev/null
fi
read -r ver cluster port status _ < <(pg_lsclusters -h | head -1)
if [ "$status" != "online" ]; then pg_ctlcluster "$ver" "$cluster" start; fi
for _ in $(seq 1 30); do
  su postgres -c "psql -p $port -qtAc 'select 1'" >/dev/null 2>&1 && break
  sleep 0.5
done
su postgres -c "psql -p $port -qtAc \"select 1 from pg_roles where rolname='weft'\"" | grep -q 1 ||
  su postgres -c "psql -p $port -qc \"create role weft login superuser password 'weft'\""
su postgres -c "psql -p $port -qtAc \"select 1 from pg_database where datname='weft_test'\"" | grep -q 1 ||
  su postgres -c "psql -p $port -qc 'create database weft_test owner weft'"
echo "postgres://weft:weft@127.0.0.1:$port/weft_test"

#!/bin/bash
# test_postgres.sh — runs test_store_postgres (the store through its C interface) against a
# throw-away cluster with a small shared_buffers; stopped again however the test ends.
# $1: the test_store_postgres binary.
set -u
. "$(dirname "$0")/pg_cluster.sh"
pg_start DSN "shared_buffers = 1MB" || { echo "could not start a PostgreSQL cluster" >&2; exit 1; }
IDB_PG_DSN=$DSN "$1"

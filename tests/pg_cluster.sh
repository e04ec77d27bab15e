# pg_cluster.sh — throw-away PostgreSQL clusters for the postgres tests (sourced by them).
# pg_start VAR [setting...] initdb's a cluster in a fresh /tmp/idbench.pgtest.* directory
# (only its owner enters; the socket there, no TCP listener), starts it and puts its
# conninfo in VAR. Every cluster started is stopped and its directory removed when the
# shell exits, however it exits (EXIT trap; INT and TERM exit through it). As root the
# server runs as `postgres`.
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PG_CLUSTERS=()

# Run a command as the server's user.
pg_as() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

pg_start() {
  local var=$1 d
  shift
  d=$(mktemp -d /tmp/idbench.pgtest.XXXXXX) || return 1
  PG_CLUSTERS+=("$d")
  chmod 700 "$d"
  if [ "$(id -u)" = 0 ]; then chown postgres "$d" || return 1; fi
  pg_as "$PGBIN/initdb" -D "$d/data" -A trust -U postgres --no-sync >"$d/initdb.log" 2>&1 ||
    { cat "$d/initdb.log" >&2; return 1; }
  { echo "listen_addresses = ''"; echo "unix_socket_directories = '$d'"; echo "fsync = off"
    for s in "$@"; do echo "$s"; done; } >>"$d/data/postgresql.conf"
  pg_as "$PGBIN/pg_ctl" -D "$d/data" -l "$d/log" -w -s start || { cat "$d/log" >&2; return 1; }
  printf -v "$var" 'host=%s user=postgres dbname=postgres' "$d"
}

# The data directory of the cluster whose conninfo is $1.
pg_datadir() { local h=${1#host=}; echo "${h%% *}/data"; }

# Stop every cluster started (immediately) and remove its directory.
pg_stop_all() {
  local d
  for d in "${PG_CLUSTERS[@]}"; do
    pg_as "$PGBIN/pg_ctl" -D "$d/data" -m immediate -s stop >/dev/null 2>&1
    rm -rf "$d"
  done
  PG_CLUSTERS=()
}
trap pg_stop_all EXIT
trap 'exit 1' INT TERM HUP

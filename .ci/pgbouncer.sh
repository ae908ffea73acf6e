#!/usr/bin/env bash
# pgbouncer.sh start DIR [PORT] | stop DIR
#
# start: installs PgBouncer from Debian's package when it is missing, writes its configuration into DIR (a new
# or empty directory) and starts it in the background on 127.0.0.1:PORT (6432 by default) as the user postgres
# (PgBouncer refuses to run as root), in transaction pooling mode, in front of the PostgreSQL server on
# 127.0.0.1:5432: every database name reaches the database of that name (a wildcard entry), every user is let in
# without a password (auth_type trust, as that server trusts local connections). The configuration is the
# plainest an operator would write: no ignore_startup_parameters beyond extra_float_digits, which other clients
# send; the adapter needs none (odata/postgres, pooler=transaction).
# stop: stops the PgBouncer started with DIR.
set -euo pipefail

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

case "${1:-}" in
start)
  dir=${2:?usage: pgbouncer.sh start DIR [PORT]}
  port=${3:-6432}
  if ! command -v pgbouncer >/dev/null && [ ! -x /usr/sbin/pgbouncer ]; then
    echo "installing pgbouncer"
    as_root apt-get update -qq
    # The package's own service is not wanted: ours runs with its own configuration.
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null
  fi
  bin=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
  mkdir -p "$dir"
  cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=5432

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 20
server_idle_timeout = 10
ignore_startup_parameters = extra_float_digits
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
  echo '"postgres" ""' >"$dir/userlist.txt"
  as_root chown -R postgres "$dir"
  as_root runuser -u postgres -- "$bin" -d "$dir/pgbouncer.ini"
  for _ in $(seq 1 50); do
    psql -h 127.0.0.1 -p "$port" -U postgres -d postgres -X -Atc 'SELECT 1' >/dev/null 2>&1 && exit 0
    sleep 0.2
  done
  echo "PgBouncer did not answer on 127.0.0.1:$port; its log:" >&2
  cat "$dir/pgbouncer.log" >&2 || true
  exit 1
  ;;
stop)
  dir=${2:?usage: pgbouncer.sh stop DIR}
  if [ -f "$dir/pgbouncer.pid" ]; then
    as_root kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
  fi
  ;;
*)
  echo "usage: pgbouncer.sh start DIR [PORT] | stop DIR" >&2
  exit 2
  ;;
esac

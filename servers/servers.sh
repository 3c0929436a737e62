#!/usr/bin/env bash
# The newer servers txlab is tested against, from Debian chroots on loopback
# ports: MySQL 9 (sid), MariaDB 11.8 on its own, a 3-node Galera cluster of
# MariaDB 11.8, and PostgreSQL 17 (trixie). No container engine is needed:
# `debootstrap` builds each chroot once and keeps it, so later runs only start
# the servers (seconds).
#
#   servers/servers.sh up        # build what is missing, start every server, create the txlab user
#   servers/servers.sh status    # which server answers on which port, and its version
#   servers/servers.sh env       # the TXLAB_*_URL variables the live tests read, as shell exports
#   servers/servers.sh down      # stop every server (the chroots and their data stay)
#   servers/servers.sh up mysql9 pg17   # only some of them
#
# Servers: mysql9 (127.0.0.1:3310), mariadb11 (3311), galera (4401, 4402,
# 4403), pg17 (5417). Each has the user `txlab` (password `txlab`) that may
# create and drop databases. Must run as root (debootstrap, chroot, mount).
#
# TXLAB_SERVERS_DIR (default /var/cache/txlab-servers) holds the chroots.
# The mirror is the one apt uses here; it may be a snapshot, so apt in the
# chroots ignores the Release files' expiry.
set -euo pipefail

ROOT_DIR=${TXLAB_SERVERS_DIR:-/var/cache/txlab-servers}
SID=$ROOT_DIR/sid          # MySQL 9 (mysql-server conflicts with mariadb-server)
TRIXIE=$ROOT_DIR/trixie    # MariaDB 11.8, Galera 4, PostgreSQL 17
DATA=/var/lib/txlab        # inside each chroot
LOGS=/var/log/txlab        # inside each chroot

MYSQL9_PORT=3310
MARIADB11_PORT=3311
GALERA_PORTS=(4401 4402 4403)
PG17_PORT=5417
ALL=(mysql9 mariadb11 galera pg17)

log() { printf '== servers: %s\n' "$*" >&2; }
die() { printf 'servers: %s\n' "$*" >&2; exit 1; }

apt_opts=(-o Acquire::Check-Valid-Until=false -o Acquire::Retries=3 -o Dpkg::Use-Pty=0)

mirror() {
  local uri
  uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$uri" ] || uri=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$uri" ] || die "no Debian mirror found in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list"
  printf '%s\n' "$uri"
}

# Mounts a chroot needs to run servers: /proc (mysqld and pg_ctl read it) and
# a /dev/shm for PostgreSQL's shared memory. Idempotent.
mount_chroot() {
  local dir=$1
  mountpoint -q "$dir/proc" || mount -t proc proc "$dir/proc"
  mkdir -p "$dir/dev/shm"
  mountpoint -q "$dir/dev/shm" || mount -t tmpfs -o mode=1777 shm "$dir/dev/shm"
}

# debootstrap a minbase chroot of `suite` into `dir` and install `packages`.
# A chroot is complete once `dir/.txlab-ready` names its packages; an
# interrupted build is started again from scratch.
build_chroot() {
  local suite=$1 dir=$2; shift 2
  local want="$suite: $*"
  if [ -f "$dir/.txlab-ready" ] && [ "$(cat "$dir/.txlab-ready")" = "$want" ]; then
    return 0
  fi
  command -v debootstrap >/dev/null 2>&1 || {
    log "installing debootstrap"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  }
  local started=$SECONDS
  if [ -d "$dir" ]; then
    log "removing the incomplete chroot $dir"
    umount_chroot "$dir"
    rm -rf --one-file-system "$dir"
  fi
  mkdir -p "$dir"
  log "debootstrap $suite into $dir"
  debootstrap --variant=minbase "$suite" "$dir" "$(mirror)" >"$dir.debootstrap.log" 2>&1 \
    || die "debootstrap $suite failed; see $dir.debootstrap.log"
  # Packages must not start their services in the chroot.
  printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
  chmod +x "$dir/usr/sbin/policy-rc.d"
  mount_chroot "$dir"
  log "installing $* in $dir"
  chroot "$dir" apt-get "${apt_opts[@]}" update -qq >>"$dir.debootstrap.log" 2>&1 \
    || die "apt-get update in $dir failed; see $dir.debootstrap.log"
  chroot "$dir" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y -qq \
    --no-install-recommends "$@" >>"$dir.debootstrap.log" 2>&1 \
    || die "installing $* in $dir failed; see $dir.debootstrap.log"
  chroot "$dir" apt-get clean
  printf '%s' "$want" >"$dir/.txlab-ready"
  log "$suite chroot ready in $((SECONDS - started)) s"
}

umount_chroot() {
  local dir=$1
  mountpoint -q "$dir/dev/shm" 2>/dev/null && umount "$dir/dev/shm" || true
  mountpoint -q "$dir/proc" 2>/dev/null && umount "$dir/proc" || true
}

chroot_of() {
  case $1 in
    mysql9) echo "$SID" ;;
    mariadb11 | galera | pg17) echo "$TRIXIE" ;;
    *) die "unknown server '$1' (known: ${ALL[*]})" ;;
  esac
}

build() {
  local need_sid=0 need_trixie=0 s
  for s in "$@"; do
    case $(chroot_of "$s") in
      "$SID") need_sid=1 ;;
      "$TRIXIE") need_trixie=1 ;;
    esac
  done
  [ $need_sid = 0 ] || build_chroot sid "$SID" mysql-server mysql-client
  [ $need_trixie = 0 ] || build_chroot trixie "$TRIXIE" \
    mariadb-server mariadb-client galera-4 rsync lsof iproute2 procps postgresql-17
  [ $need_sid = 0 ] || mount_chroot "$SID"
  [ $need_trixie = 0 ] || mount_chroot "$TRIXIE"
}

# --- readiness ---------------------------------------------------------------

# A MySQL-protocol server answers on `port` (the chroot's own client, which
# speaks its authentication).
# The chroot's own client for `port`, with the options that keep it quiet
# (MariaDB's client warns that a password-less login skips the TLS check).
client_of() {
  local dir=$1 tool=$2
  if [ -x "$dir/usr/bin/mariadb" ]; then
    case $tool in
      admin) echo "mariadb-admin --skip-ssl-verify-server-cert" ;;
      sql) echo "mariadb --skip-ssl-verify-server-cert" ;;
    esac
  else
    case $tool in
      admin) echo mysqladmin ;;
      sql) echo mysql ;;
    esac
  fi
}

mysql_admin() {
  local dir=$1 port=$2; shift 2
  # shellcheck disable=SC2046 # the client and its options are words
  chroot "$dir" $(client_of "$dir" admin) --protocol=tcp -h 127.0.0.1 -P "$port" -u root "$@"
}

mysql_ping() { mysql_admin "$1" "$2" ping >/dev/null 2>&1; }

mysql_sql() {
  local dir=$1 port=$2 sql=$3
  # shellcheck disable=SC2046
  chroot "$dir" $(client_of "$dir" sql) --protocol=tcp -h 127.0.0.1 -P "$port" -u root -N -e "$sql"
}

wait_for() {
  local what=$1 tries=$2; shift 2
  local _
  for _ in $(seq "$tries"); do
    "$@" && return 0
    sleep 0.5
  done
  die "$what did not answer after $((tries / 2)) s"
}

create_mysql_user() {
  local dir=$1 port=$2
  mysql_sql "$dir" "$port" "CREATE USER IF NOT EXISTS 'txlab'@'127.0.0.1' IDENTIFIED BY 'txlab';
    ALTER USER 'txlab'@'127.0.0.1' IDENTIFIED BY 'txlab';
    GRANT ALL PRIVILEGES ON *.* TO 'txlab'@'127.0.0.1';
    FLUSH PRIVILEGES;"
}

# --- the servers -------------------------------------------------------------

start_mysql9() {
  local dir=$SID port=$MYSQL9_PORT
  if mysql_ping "$dir" "$port"; then create_mysql_user "$dir" "$port"; return 0; fi
  chroot "$dir" sh -c "mkdir -p $DATA $LOGS /var/run/mysqld && chown mysql:mysql $DATA $LOGS /var/run/mysqld"
  if [ ! -d "$dir$DATA/mysql9/mysql" ]; then
    rm -rf "$dir$DATA/mysql9"
    chroot "$dir" mysqld --no-defaults --initialize-insecure --user=mysql \
      --datadir=$DATA/mysql9 >"$dir$LOGS/mysql9-init.log" 2>&1 \
      || die "mysqld --initialize failed; see $dir$LOGS/mysql9-init.log"
  fi
  setsid chroot "$dir" mysqld --no-defaults --user=mysql --datadir=$DATA/mysql9 \
    --port=$port --bind-address=127.0.0.1 --socket=/var/run/mysqld/mysql9.sock \
    --mysqlx=OFF --log-error=$LOGS/mysql9.err </dev/null >/dev/null 2>&1 &
  wait_for "MySQL 9 on $port (log: $dir$LOGS/mysql9.err)" 120 mysql_ping "$dir" "$port"
  create_mysql_user "$dir" "$port"
}

start_mariadb11() {
  local dir=$TRIXIE port=$MARIADB11_PORT
  if mysql_ping "$dir" "$port"; then create_mysql_user "$dir" "$port"; return 0; fi
  chroot "$dir" sh -c "mkdir -p $DATA $LOGS /run/mysqld && chown mysql:mysql $DATA $LOGS /run/mysqld"
  if [ ! -d "$dir$DATA/mariadb11/mysql" ]; then
    rm -rf "$dir$DATA/mariadb11"
    chroot "$dir" mariadb-install-db --no-defaults --auth-root-authentication-method=normal --user=mysql --datadir=$DATA/mariadb11 \
      >"$dir$LOGS/mariadb11-init.log" 2>&1 \
      || die "mariadb-install-db failed; see $dir$LOGS/mariadb11-init.log"
  fi
  setsid chroot "$dir" mariadbd --no-defaults --user=mysql --datadir=$DATA/mariadb11 \
    --port=$port --bind-address=127.0.0.1 --socket=/run/mysqld/mariadb11.sock \
    --log-error=$LOGS/mariadb11.err </dev/null >/dev/null 2>&1 &
  wait_for "MariaDB 11 on $port (log: $dir$LOGS/mariadb11.err)" 120 mysql_ping "$dir" "$port"
  create_mysql_user "$dir" "$port"
}

galera_cnf() {
  local i=$1
  cat <<EOF
[mariadbd]
user=mysql
datadir=$DATA/galera$i
port=${GALERA_PORTS[$((i - 1))]}
bind-address=127.0.0.1
socket=/run/mysqld/galera$i.sock
log-error=$LOGS/galera$i.err
binlog_format=ROW
innodb_autoinc_lock_mode=2
wsrep_on=ON
wsrep_provider=/usr/lib/galera/libgalera_smm.so
wsrep_cluster_name=txlab
wsrep_cluster_address=gcomm://127.0.0.1:4517,127.0.0.1:4527,127.0.0.1:4537
wsrep_node_address=127.0.0.1:45${i}7
wsrep_node_name=node$i
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:45${i}7;ist.recv_addr=127.0.0.1:45${i}8"
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:45${i}9
EOF
}

galera_size() {
  mysql_sql "$TRIXIE" "${GALERA_PORTS[$1]}" "SHOW STATUS LIKE 'wsrep_cluster_size'" 2>/dev/null \
    | awk '{print $2}'
}

galera_formed() { [ "$(galera_size 0)" = 3 ] && [ "$(galera_size 2)" = 3 ]; }

node_synced() {
  [ "$(mysql_sql "$TRIXIE" "${GALERA_PORTS[$(($1 - 1))]}" \
    "SHOW STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null | awk '{print $2}')" = Synced ]
}

# The cluster is formed anew whenever it is not running whole: its data is
# the tests' only, and a clean bootstrap takes seconds where recovering a
# cluster stopped uncleanly needs its saved state edited.
start_galera() {
  local dir=$TRIXIE i
  if galera_formed; then create_mysql_user "$dir" "${GALERA_PORTS[0]}"; return 0; fi
  stop_galera
  chroot "$dir" sh -c "mkdir -p $DATA $LOGS /run/mysqld /etc/txlab && chown mysql:mysql $DATA $LOGS /run/mysqld"
  for i in 1 2 3; do
    galera_cnf "$i" >"$dir/etc/txlab/galera$i.cnf"
    rm -rf "$dir$DATA/galera$i"
  done
  # Only the first node gets a data directory; the others receive theirs by SST.
  chroot "$dir" mariadb-install-db --no-defaults --auth-root-authentication-method=normal --user=mysql --datadir=$DATA/galera1 \
    >"$dir$LOGS/galera-init.log" 2>&1 || die "mariadb-install-db failed; see $dir$LOGS/galera-init.log"
  setsid chroot "$dir" mariadbd --defaults-file=/etc/txlab/galera1.cnf --wsrep-new-cluster \
    </dev/null >/dev/null 2>&1 &
  wait_for "Galera node 1 on ${GALERA_PORTS[0]} (log: $dir$LOGS/galera1.err)" 120 node_synced 1
  for i in 2 3; do
    chroot "$dir" sh -c "mkdir -p $DATA/galera$i && chown mysql:mysql $DATA/galera$i"
    setsid chroot "$dir" mariadbd --defaults-file=/etc/txlab/galera$i.cnf \
      </dev/null >/dev/null 2>&1 &
    wait_for "Galera node $i on ${GALERA_PORTS[$((i - 1))]} (log: $dir$LOGS/galera$i.err)" 240 node_synced "$i"
  done
  wait_for "a Galera cluster of 3" 60 galera_formed
  # Users replicate: created once, through the first node.
  create_mysql_user "$dir" "${GALERA_PORTS[0]}"
}

pg17_bin=/usr/lib/postgresql/17/bin

pg17_ready() { pg_isready -q -h 127.0.0.1 -p "$PG17_PORT" 2>/dev/null || chroot "$TRIXIE" $pg17_bin/pg_isready -q -h 127.0.0.1 -p "$PG17_PORT"; }

start_pg17() {
  local dir=$TRIXIE
  if ! pg17_ready; then
    chroot "$dir" sh -c "mkdir -p $DATA $LOGS && chown postgres:postgres $DATA $LOGS"
    if [ ! -f "$dir$DATA/pg17/PG_VERSION" ]; then
      rm -rf "$dir$DATA/pg17"
      chroot "$dir" runuser -u postgres -- $pg17_bin/initdb -D $DATA/pg17 -A trust -U postgres \
        >"$dir$LOGS/pg17-init.log" 2>&1 || die "initdb failed; see $dir$LOGS/pg17-init.log"
    fi
    chroot "$dir" runuser -u postgres -- $pg17_bin/pg_ctl -D $DATA/pg17 -l $LOGS/pg17.log -w \
      -o "-p $PG17_PORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=200" start \
      >/dev/null || die "PostgreSQL 17 did not start; see $dir$LOGS/pg17.log"
  fi
  wait_for "PostgreSQL 17 on $PG17_PORT" 60 pg17_ready
  chroot "$dir" runuser -u postgres -- $pg17_bin/psql -h 127.0.0.1 -p $PG17_PORT -q -v ON_ERROR_STOP=1 \
    -c "DO \$\$ BEGIN
          IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'txlab') THEN
            CREATE ROLE txlab LOGIN SUPERUSER PASSWORD 'txlab';
          END IF; END \$\$;" -c "ALTER ROLE txlab LOGIN SUPERUSER PASSWORD 'txlab';" postgres
}

# --- stopping ----------------------------------------------------------------

stop_mysqld_on() {
  local dir=$1 port=$2 name=$3 _
  mysql_ping "$dir" "$port" || return 0
  mysql_admin "$dir" "$port" shutdown >/dev/null 2>&1 || true
  for _ in $(seq 60); do mysql_ping "$dir" "$port" || return 0; sleep 0.5; done
  log "$name on $port did not stop"
}

stop_galera() {
  local i
  for i in 3 2 1; do stop_mysqld_on "$TRIXIE" "${GALERA_PORTS[$((i - 1))]}" "Galera node $i"; done
}

stop_pg17() {
  pg17_ready || return 0
  chroot "$TRIXIE" runuser -u postgres -- $pg17_bin/pg_ctl -D $DATA/pg17 -m fast -w stop >/dev/null
}

# --- commands ----------------------------------------------------------------

version_of() {
  case $1 in
    mysql9) mysql_sql "$SID" $MYSQL9_PORT 'SELECT VERSION()' 2>/dev/null ;;
    mariadb11) mysql_sql "$TRIXIE" $MARIADB11_PORT 'SELECT VERSION()' 2>/dev/null ;;
    galera) mysql_sql "$TRIXIE" "${GALERA_PORTS[0]}" \
      "SELECT CONCAT(VERSION(), ', cluster of ', VARIABLE_VALUE) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'WSREP_CLUSTER_SIZE'" 2>/dev/null ;;
    pg17) chroot "$TRIXIE" runuser -u postgres -- $pg17_bin/psql -h 127.0.0.1 -p $PG17_PORT -At \
      -c 'SHOW server_version' postgres 2>/dev/null ;;
  esac
}

url_of() {
  case $1 in
    mysql9) echo "TXLAB_MYSQL9_URL=mysql://txlab:txlab@127.0.0.1:$MYSQL9_PORT" ;;
    mariadb11) echo "TXLAB_MARIADB11_URL=mysql://txlab:txlab@127.0.0.1:$MARIADB11_PORT" ;;
    galera) echo "TXLAB_GALERA_URLS=mysql://txlab:txlab@127.0.0.1:${GALERA_PORTS[0]},mysql://txlab:txlab@127.0.0.1:${GALERA_PORTS[1]},mysql://txlab:txlab@127.0.0.1:${GALERA_PORTS[2]}" ;;
    pg17) echo "TXLAB_PG17_URL=postgres://txlab:txlab@127.0.0.1:$PG17_PORT/postgres" ;;
  esac
}

[ $# -ge 1 ] || { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
command=$1; shift
servers=("$@")
[ ${#servers[@]} -gt 0 ] || servers=("${ALL[@]}")
for s in "${servers[@]}"; do chroot_of "$s" >/dev/null; done

case $command in
  up)
    [ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot, mount)"
    started=$SECONDS
    build "${servers[@]}"
    for s in "${servers[@]}"; do
      t=$SECONDS
      "start_$s"
      log "$s: $(version_of "$s") ($((SECONDS - t)) s)"
    done
    log "up in $((SECONDS - started)) s"
    ;;
  down)
    [ "$(id -u)" = 0 ] || die "must run as root"
    for s in "${servers[@]}"; do
      case $s in
        mysql9) [ -d "$SID" ] && stop_mysqld_on "$SID" $MYSQL9_PORT "MySQL 9" ;;
        mariadb11) [ -d "$TRIXIE" ] && stop_mysqld_on "$TRIXIE" $MARIADB11_PORT "MariaDB 11" ;;
        galera) [ -d "$TRIXIE" ] && stop_galera ;;
        pg17) [ -d "$TRIXIE" ] && stop_pg17 ;;
      esac
    done
    ;;
  status)
    for s in "${servers[@]}"; do
      v=$(version_of "$s" || true)
      printf '%-10s %s\n' "$s" "${v:-not answering}"
    done
    ;;
  env)
    for s in "${servers[@]}"; do printf 'export %s\n' "$(url_of "$s")"; done
    ;;
  *) die "unknown command '$command' (up, down, status, env)" ;;
esac

#!/bin/sh
# The official images' conventions for the pilot's services image (Dockerfile.services): `redis-server` without a
# config file listens to the other containers (protected mode off, as redis:7.0's entrypoint does), `postgres`
# creates its cluster, user and database from POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB on first start
# (as postgres:15's does) and runs as the postgres user; anything else runs as it is.
set -eu

postgres_init() {
    pgbin=/usr/lib/postgresql/15/bin
    install -d -o postgres -g postgres -m 700 "$PGDATA"
    install -d -o postgres -g postgres -m 2775 /var/run/postgresql
    if [ ! -s "$PGDATA/PG_VERSION" ]; then
        : "${POSTGRES_PASSWORD:?postgres: set POSTGRES_PASSWORD}"
        user=${POSTGRES_USER:-postgres}
        database=${POSTGRES_DB:-$user}
        password_file=$(mktemp)
        printf '%s\n' "$POSTGRES_PASSWORD" > "$password_file"
        chown postgres "$password_file"
        setpriv --reuid=postgres --regid=postgres --init-groups "$pgbin/initdb" -D "$PGDATA" -U "$user" \
            --pwfile="$password_file" --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8
        rm -f "$password_file"
        echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
        setpriv --reuid=postgres --regid=postgres --init-groups "$pgbin/pg_ctl" -D "$PGDATA" -w \
            -o "-c listen_addresses=''" start
        if [ "$database" != postgres ]; then
            setpriv --reuid=postgres --regid=postgres --init-groups psql -v ON_ERROR_STOP=1 -U "$user" -d postgres \
                -c "CREATE DATABASE \"$database\""
        fi
        setpriv --reuid=postgres --regid=postgres --init-groups "$pgbin/pg_ctl" -D "$PGDATA" -w -m fast stop
    fi
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$pgbin/postgres" -D "$PGDATA" \
        -c listen_addresses='*'
}

case "${1:-}" in
    redis-server)
        shift
        case "${1:-}" in
            *.conf) exec redis-server "$@" ;;
        esac
        exec redis-server --protected-mode no "$@"
        ;;
    postgres)
        postgres_init
        ;;
esac
exec "$@"

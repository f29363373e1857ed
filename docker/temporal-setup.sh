#!/bin/sh
# Temporal's side of the stack, run by the admin-tools image (which has temporal-sql-tool and the CLI).
#   temporal-setup.sh schema      creates or upgrades Temporal's two databases on PostgreSQL
#   temporal-setup.sh namespace   creates the default namespace and Rota's search attributes
# Both are safe to run again on every `docker compose up`.
set -eu
sql() { temporal-sql-tool --plugin postgres12 --ep postgresql -p 5432 -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" --db "$@"; }
case "$1" in
  schema)
    for db in temporal temporal_visibility; do
      kind=$([ "$db" = temporal ] && echo temporal || echo visibility)
      # A new database gets the base schema; every start brings it up to this server version's.
      if sql "$db" create >/dev/null 2>&1; then
        sql "$db" setup-schema -v 0.0
      fi
      sql "$db" update-schema -d "/etc/temporal/schema/postgresql/v12/$kind/versioned"
    done
    ;;
  namespace)
    until temporal operator cluster health --address "$TEMPORAL_ADDRESS" | grep -q SERVING; do sleep 1; done
    temporal operator namespace describe --namespace default --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1 \
      || temporal operator namespace create --namespace default --address "$TEMPORAL_ADDRESS"
    # Rota's host registers these too; here they exist before any workflow sets them.
    for attribute in RotaVmStatus:Keyword RotaWorker:Keyword RotaVmSet:Keyword RotaRestarts:Int RotaLastExit:Keyword; do
      temporal operator search-attribute create --namespace default --name "${attribute%%:*}" --type "${attribute##*:}" \
        --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1 || true
    done
    ;;
  *) echo "usage: temporal-setup.sh schema|namespace" >&2; exit 2 ;;
esac

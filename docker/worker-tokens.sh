#!/bin/sh
# Gives each agent named in $WORKERS a service account with the worker role, scoped to that worker,
# and writes its token to $TOKENS_DIR/<worker> (default /tokens), where the agent's entrypoint reads it;
# and Prometheus a compute:read account, its token in $TOKENS_DIR/prometheus. A token already
# written is kept; run `docker compose down -v` to start over.
set -eu
api=${ROTA_API:-http://rota:8080}
dir=${TOKENS_DIR:-/tokens}
auth="Authorization: Bearer ${ROTA_BOOTSTRAP_ADMIN_TOKEN:?ROTA_BOOTSTRAP_ADMIN_TOKEN is not set}"
until curl -fsS "$api/health" >/dev/null 2>&1; do
  echo "worker-tokens: waiting for $api/health"
  sleep 2
done
# account NAME FILE FIELDS: (re)creates service account NAME with the JSON FIELDS (its roles) and writes
# its token to $dir/FILE. An account left from an earlier stack whose token was lost is replaced.
account() {
  curl -fsS -X DELETE -H "$auth" "$api/v1/service-accounts/$1" >/dev/null 2>&1 || true
  reply=$(curl -fsS -X POST -H "$auth" -H 'Content-Type: application/json' \
    -d "{\"name\":\"$1\",$3}" "$api/v1/service-accounts")
  token=$(printf '%s' "$reply" | sed -n 's/.*"token" *: *"\([^"]*\)".*/\1/p')
  if [ -z "$token" ]; then
    echo "worker-tokens: no token in the answer for $1: $reply" >&2
    exit 1
  fi
  printf '%s' "$token" > "$dir/$2.tmp"
  mv "$dir/$2.tmp" "$dir/$2"
  echo "worker-tokens: token for $2 written"
}

for worker in $WORKERS; do
  if [ -s "$dir/$worker" ]; then
    continue
  fi
  account "agent-$worker" "$worker" "\"roles\":[\"worker\"],\"worker\":\"$worker\""
done

# Prometheus scrapes /metrics with a compute:read account of its own.
if [ ! -s "$dir/prometheus" ]; then
  account prometheus prometheus '"roles":["compute:read"]'
fi

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
for worker in $WORKERS; do
  if [ -s "$dir/$worker" ]; then
    continue
  fi
  # An account left from an earlier stack whose token was lost: replace it.
  curl -fsS -X DELETE -H "$auth" "$api/v1/service-accounts/agent-$worker" >/dev/null 2>&1 || true
  reply=$(curl -fsS -X POST -H "$auth" -H 'Content-Type: application/json' \
    -d "{\"name\":\"agent-$worker\",\"roles\":[\"worker\"],\"worker\":\"$worker\"}" \
    "$api/v1/service-accounts")
  token=$(printf '%s' "$reply" | sed -n 's/.*"token" *: *"\([^"]*\)".*/\1/p')
  if [ -z "$token" ]; then
    echo "worker-tokens: no token in the answer for $worker: $reply" >&2
    exit 1
  fi
  printf '%s' "$token" > "$dir/$worker.tmp"
  mv "$dir/$worker.tmp" "$dir/$worker"
  echo "worker-tokens: token for $worker written"
done

# Prometheus scrapes /metrics with a compute:read account of its own.
if [ ! -s "$dir/prometheus" ]; then
  curl -fsS -X DELETE -H "$auth" "$api/v1/service-accounts/prometheus" >/dev/null 2>&1 || true
  reply=$(curl -fsS -X POST -H "$auth" -H 'Content-Type: application/json' \
    -d '{"name":"prometheus","roles":["compute:read"]}' "$api/v1/service-accounts")
  token=$(printf '%s' "$reply" | sed -n 's/.*"token" *: *"\([^"]*\)".*/\1/p')
  if [ -z "$token" ]; then
    echo "worker-tokens: no token in the answer for prometheus: $reply" >&2
    exit 1
  fi
  printf '%s' "$token" > "$dir/prometheus.tmp"
  mv "$dir/prometheus.tmp" "$dir/prometheus"
  echo "worker-tokens: token for prometheus written"
fi

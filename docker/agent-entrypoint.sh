#!/bin/sh
# Starts the agent. Its worker token may come from a file (a mounted secret, or the compose file's
# worker-tokens step) instead of ROTA_AGENT_TOKEN; the agent waits up to two minutes for it to appear.
set -eu
if [ -z "${ROTA_AGENT_TOKEN:-}" ] && [ -n "${ROTA_AGENT_TOKEN_FILE:-}" ]; then
  waited=0
  while [ ! -s "$ROTA_AGENT_TOKEN_FILE" ]; do
    if [ "$waited" -ge 120 ]; then
      echo "rota-agent: no worker token in $ROTA_AGENT_TOKEN_FILE after 120 s" >&2
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  ROTA_AGENT_TOKEN=$(cat "$ROTA_AGENT_TOKEN_FILE")
  export ROTA_AGENT_TOKEN
fi
exec java -XX:MaxRAMPercentage=75 -jar "${ROTA_AGENT_JAR:-/opt/rota/rota-agent.jar}" "$@"

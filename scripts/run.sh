#!/usr/bin/env bash
# Serves $DATA on $HOST:$PORT (JSON-RPC) and $HOST:$GRPC_PORT (gRPC) with a demo API key (created
# once, kept in $DATA.key); once both ports listen, prints both addresses and a ready curl line.
# Called by `make run`; its exit status is serve's.
set -euo pipefail
KEYFILE="$DATA.key"
if [ ! -s "$KEYFILE" ]; then
  node dist/src/cli.js keys create --data "$DATA" --label demo | tail -n 1 > "$KEYFILE"
fi
KEY=$(cat "$KEYFILE")
URL="http://$HOST:$PORT/v3/$KEY"

banner() {
  echo
  if [ -n "${STARTED:-}" ]; then
    # The real time since make started: a first run includes npm ci and the build (a minute or more).
    echo "ready $(( $(date +%s) - STARTED )) s after make run started (install, build and data included; later runs skip what is done)"
  fi
  echo "ethlogd serves $DATA at:"
  echo "  $URL"
  echo "try:"
  echo "  curl -s -H 'Content-Type: application/json' -d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_getBlockByNumber\",\"params\":[\"latest\",false]}' $URL"
  echo "and gRPC (ethlogd.v1.EthLogs, src/grpc/ethlogd.proto, server reflection on) at:"
  echo "  $HOST:$GRPC_PORT   with metadata x-api-key: $KEY"
  echo "health, readiness and Prometheus metrics (no key):"
  echo "  http://$HOST:$PORT/health  http://$HOST:$PORT/ready  http://$HOST:$PORT/metrics"
  echo
}

# serve prints "grpc listening on ..." once both ports are bound: the banner follows it. The reader
# ignores Ctrl-C so that serve, which shuts down gracefully on it, decides when the pipe closes.
node dist/src/cli.js serve --data "$DATA" --host "$HOST" --port "$PORT" --grpc-port "$GRPC_PORT" |
  (
    trap '' INT
    while IFS= read -r line; do
      printf '%s\n' "$line"
      case "$line" in "grpc listening on "*) banner ;; esac
    done
  )

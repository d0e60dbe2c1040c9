#!/usr/bin/env bash
# `make cluster`: three replicas behind HAProxy on loopback (deploy/README.md). With anvil installed
# (the optional npm dependency), anvil mines a block every 2 s, its chain is ingested once into a seed
# store, and each replica is `serve --follow-rpc` on a snapshot of it; without anvil, the replicas
# serve snapshots of a generated store. Prints the balancer's URL with a key; Ctrl-C stops everything.
set -euo pipefail
HAPROXY=$(command -v haproxy || true)
if [ -z "$HAPROXY" ]; then
  echo "make cluster needs HAProxy on PATH: on Debian or Ubuntu, sudo apt-get install -y haproxy" >&2
  exit 1
fi
ANVIL=node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil
CLI="node dist/src/cli.js"
ROOT=$(mktemp -d "${TMPDIR:-/tmp}/ethlogd-cluster.XXXXXX")
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$ROOT"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

FOLLOW=()
if [ -x "$ANVIL" ]; then
  "$ANVIL" --port "$CLUSTER_NODE_PORT" --block-time 2 --quiet > "$ROOT/anvil.log" 2>&1 &
  PIDS+=($!)
  NODE="http://127.0.0.1:$CLUSTER_NODE_PORT"
  until curl -s -o /dev/null -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' "$NODE"; do sleep 0.1; done
  $CLI ingest --rpc "$NODE" --data "$ROOT/seed" --log-level error > /dev/null
  FOLLOW=(--follow-rpc "$NODE")
  SOURCE="anvil at $NODE (a block every 2 s), followed by each replica"
else
  $CLI generate --out "$ROOT/seed" --blocks 500 --density 0.25 > /dev/null
  SOURCE="a generated store (anvil is not installed: the replicas do not follow a node)"
fi
KEY=$($CLI keys create --data "$ROOT/seed" --label cluster | tail -n 1)
REPLICAS=()
for i in 1 2 3; do
  PORT=$((CLUSTER_REPLICA_PORT + i - 1))
  $CLI snapshot --data "$ROOT/seed" --out "$ROOT/replica$i" > /dev/null
  $CLI serve --data "$ROOT/replica$i" --port "$PORT" --http-threads 1 --threads 1 --access-log off --log-level warn "${FOLLOW[@]}" > /dev/null &
  PIDS+=($!)
  REPLICAS+=("127.0.0.1:$PORT")
done
ETHLOGD_LB_BIND="127.0.0.1:$CLUSTER_PORT" ETHLOGD_REPLICA1=${REPLICAS[0]} ETHLOGD_REPLICA2=${REPLICAS[1]} ETHLOGD_REPLICA3=${REPLICAS[2]} \
  "$HAPROXY" -f deploy/haproxy.cfg -db 2> "$ROOT/haproxy.log" &
PIDS+=($!)
URL="http://127.0.0.1:$CLUSTER_PORT/v3/$KEY"
until [ "$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' "$URL")" = 200 ]; do sleep 0.2; done
echo
echo "three ethlogd replicas behind HAProxy, serving $SOURCE:"
echo "  $URL"
echo "replicas (each /ready, /metrics): ${REPLICAS[*]}"
echo "try (X-Ethlogd-Head: the answering replica's head; X-Ethlogd-Replica: which one):"
echo "  curl -si -H 'Content-Type: application/json' -d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_blockNumber\",\"params\":[]}' $URL"
echo "Ctrl-C stops them all."
wait

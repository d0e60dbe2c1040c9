#!/usr/bin/env bash
# `npm test` (and so `make test`): every compiled test file in dist/test/unit and dist/test/integration.
# Two files run at a time (the suite is sized for two cores; each file is its own process, on
# ephemeral ports and in its own temp directories), then the files in SERIAL, alone: they compare
# times measured within their own run, which a neighbouring file's load would move. Exits non-zero
# when any test failed.
set -uo pipefail
cd "$(dirname "$0")/.."
SERIAL=(dist/test/integration/isolation.test.js)
PARALLEL=()
while IFS= read -r file; do
  [[ " ${SERIAL[*]} " == *" $file "* ]] || PARALLEL+=("$file")
done < <(find dist/test/unit dist/test/integration -name '*.test.js' | sort)
node --test --test-concurrency=2 "${PARALLEL[@]}"
parallel=$?
node --test --test-concurrency=1 "${SERIAL[@]}"
serial=$?
exit $((parallel != 0 || serial != 0))

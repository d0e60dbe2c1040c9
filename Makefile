# ethlogd: `make run` installs, builds, generates the default dataset and serves it;
# `make test` installs, builds and runs every test.

NODE_MODULES := node_modules/.package-lock.json
BUILD_STAMP  := dist/.build-stamp
SOURCES      := $(shell find src test native-free-bench -name '*.ts' 2>/dev/null) tsconfig.json package.json
DATA         ?= data/default
BLOCKS       ?= 2000
DENSITY      ?= 0.25
PORT         ?= 8545
GRPC_PORT    ?= 8546
HOST         ?= 127.0.0.1
# The store layout version this build reads; a dataset `make run` generated for another one is generated again.
LAYOUT       := $(shell sed -n 's/^export const SCHEMA_VERSION = \([0-9]*\);/\1/p' src/store/schema.ts)
DATA_STAMP   := $(DATA)/.made-layout-$(LAYOUT)

.PHONY: all install build run test clean

all: build

$(NODE_MODULES): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: $(NODE_MODULES)

$(BUILD_STAMP): $(NODE_MODULES) $(SOURCES)
	rm -rf dist
	npx tsc -p tsconfig.json
	@touch $@

build: $(BUILD_STAMP)

# Only a dataset this target made (marked .made-layout-N) is replaced; any other store is left alone.
$(DATA_STAMP): | $(BUILD_STAMP)
	@if [ -e $(DATA)/data.mdb ] && ! ls $(DATA)/.made-layout-* >/dev/null 2>&1; then \
	  echo "$(DATA) holds a store make did not generate: move it away, or set DATA=another/dir"; exit 1; fi
	rm -rf $(DATA) $(DATA).key
	node dist/src/cli.js generate --out $(DATA) --blocks $(BLOCKS) --density $(DENSITY)
	touch $@

run: build $(DATA_STAMP)
	@DATA=$(DATA) HOST=$(HOST) PORT=$(PORT) GRPC_PORT=$(GRPC_PORT) bash scripts/run.sh

test: build
	npm test

clean:
	rm -rf dist

.PHONY: bench bench-quick bench-small

bench: build
	node dist/native-free-bench/run.js

bench-quick: build
	node dist/native-free-bench/run.js --quick

# Small requests against anvil and the bare transport, wrk and servers pinned to separate cores (needs Debian's wrk).
bench-small: build
	node dist/native-free-bench/run.js --only small

.PHONY: fuzz crash

# Long variants of the fuzz and crash-safety tests (`make test` runs short seeded ones).
FUZZ_RUNS          ?= 100000
CRASH_KILLS        ?= 100
CRASH_INGEST_KILLS ?= 20
CRASH_BLOCKS       ?= 13192

fuzz: build
	FUZZ_RUNS=$(FUZZ_RUNS) node --test --test-reporter=spec dist/test/integration/fuzz.test.js

crash: build
	CRASH_KILLS=$(CRASH_KILLS) CRASH_INGEST_KILLS=$(CRASH_INGEST_KILLS) CRASH_BLOCKS=$(CRASH_BLOCKS) node --test --test-reporter=spec dist/test/integration/crash.test.js

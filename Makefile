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

$(DATA)/data.mdb: | $(BUILD_STAMP)
	node dist/src/cli.js generate --out $(DATA) --blocks $(BLOCKS) --density $(DENSITY)

run: build $(DATA)/data.mdb
	@DATA=$(DATA) HOST=$(HOST) PORT=$(PORT) GRPC_PORT=$(GRPC_PORT) sh scripts/run.sh

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

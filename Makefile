# riot's build. `make ci` is what CI runs: vet, lint, and the tests with the
# race detector. Tools (buf, protoc plugins, golangci-lint, gremlins,
# benchstat) come from tools/go.mod, so nothing needs installing by hand.

GO       ?= go
TOOL     := $(GO) tool -modfile=$(CURDIR)/tools/go.mod
# Every tool set under plugins/ with a standalone main is a builtin
# (config.Builtins, checked by TestBuiltinRegistryAgrees).
BUILTINS := $(patsubst plugins/%/cmd,%,$(wildcard plugins/*/cmd))
BIN      := bin
# Stamp binaries with their commit even where GOFLAGS says -buildvcs=false:
# riot serves a builtin from the bin/riot-tool-NAME beside it only when
# both are stamped with the same clean commit. Static, without cgo, which
# riot does not use: each process starts without the dynamic loader and
# libc's threads, 7-10 ms less per `riot call` (see BENCHMARKS.md).
BUILD    := CGO_ENABLED=0 $(GO) build -buildvcs=auto

.PHONY: all build plugins proto test test-short race vet lint ci bench mutate fuzz clean demo image examples

all: build plugins

## build: bin/riot
build:
	$(BUILD) -o $(BIN)/riot ./cmd/riot

## plugins: each builtin as a standalone bin/riot-tool-NAME, and the example
plugins:
	@for p in $(BUILTINS); do \
		echo "$(BUILD) -o $(BIN)/riot-tool-$$p ./plugins/$$p/cmd/riot-tool-$$p"; \
		$(BUILD) -o $(BIN)/riot-tool-$$p ./plugins/$$p/cmd/riot-tool-$$p || exit 1; \
	done
	$(BUILD) -o $(BIN)/riot-tool-hello ./examples/hello-tool/cmd/riot-tool-hello

## image: riot's container image (IMAGE, default localhost/riot:VERSION), built
## without a registry: a Debian root filesystem by mmdebstrap from this
## machine's apt sources, riot's static binaries on top (deploy/image/build.sh)
IMAGE ?=
image:
	GO="$(GO)" BUILTINS="$(BUILTINS)" IMAGE="$(IMAGE)" deploy/image/build.sh

## proto: regenerate the committed gRPC code from shared/proto
proto:
	cd shared/proto && $(TOOL) buf lint && $(TOOL) buf generate

## demo: run examples/turn.json through riot on the embedded defaults
demo:
	$(GO) run ./cmd/riot run examples/turn.json

vet:
	@echo "== go vet (the first run also downloads and compiles riot's dependencies: minutes on a cold cache)"
	$(GO) vet ./...

lint:
	@echo "== golangci-lint (the first run builds it from tools/go.mod)"
	$(TOOL) golangci-lint run ./...

## test: the unit and integration tests
test:
	$(GO) test ./...

test-short:
	$(GO) test -short ./...

# cmd/riot's end-to-end suite takes 3-4 minutes alone and twice that on a
# loaded machine: a longer timeout than go test's 10 minutes, still inside
# CI's budget, so a slow machine is not mistaken for a hang.
race:
	@echo "== go test -race: each package's line appears when it finishes; cmd/riot's end-to-end suite is the last and longest"
	$(GO) test -race -timeout 15m ./...

## examples: the examples that are Go modules of their own, which the
## main module's ./... does not enter (their dependencies stay out of riot's)
EXAMPLE_MODULES := examples/agent-sandbox
examples:
	@for m in $(EXAMPLE_MODULES); do \
		echo "== $$m: go vet and go test"; \
		(cd $$m && $(GO) vet ./... && $(GO) test ./...) || exit 1; \
	done

## ci: what .ci/run runs on every submission
ci: vet lint race examples

## bench: the Go benchmarks; see BENCHMARKS.md for the whole-command ones
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./bench/... ./core/... ./plugins/...

## fuzz: every fuzz target of every package, each for FUZZTIME (30s by default)
FUZZTIME ?= 30s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep ^Fuzz); do \
			echo "== $$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

## mutate: mutation testing of the security-sensitive code, 90% efficacy or fail (not in ci)
mutate:
	scripts/mutate

clean:
	rm -rf $(BIN)

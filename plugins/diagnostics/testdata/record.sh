#!/usr/bin/env bash
# Re-records the checker outputs the parser tests read. Each case is a real
# run of a real checker on a small project built here, under a fixed root
# so that the absolute paths in the recordings stay the same:
#
#   plugins/diagnostics/testdata/record.sh
#
# Needs go and cargo on PATH, and TSC (TypeScript 7), TSC5 (TypeScript 5)
# and PYRIGHT pointing at those binaries, e.g. after
#   npm install --prefix /tmp/riot-npm typescript pyright
#   npm install --prefix /tmp/riot-npm5 typescript@5
#   TSC=/tmp/riot-npm/node_modules/.bin/tsc TSC5=/tmp/riot-npm5/node_modules/.bin/tsc \
#   PYRIGHT=/tmp/riot-npm/node_modules/.bin/pyright plugins/diagnostics/testdata/record.sh
#
# ruff cannot be installed on this project's machines (PyPI is not
# reachable), so testdata/ruff is written by hand; see testdata/ruff/README.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=/tmp/riotdiag-rec
rm -rf "$root"
mkdir -p "$root"
trap 'rm -rf "$root"' EXIT
export GOPROXY=off GOFLAGS=-mod=readonly CARGO_TARGET_DIR="$root/target" CARGO_NET_OFFLINE=true

# record DIR NAME CMD...: runs CMD in DIR, keeping stdout, stderr and the
# exit status as testdata/NAME.{stdout,stderr,exit}.
record() {
	local dir=$1 name=$2
	shift 2
	mkdir -p "$(dirname "$here/$name")"
	set +e
	(cd "$dir" && "$@") >"$here/$name.stdout" 2>"$here/$name.stderr"
	echo $? >"$here/$name.exit"
	set -e
}

# --- go ---
m=$root/gomod
mkdir -p "$m"/{vetfinding,typeerr,clean,user}
printf 'module example.com/m\n\ngo 1.26\n' >"$m/go.mod"
cat >"$m/vetfinding/v.go" <<'EOF'
package vetfinding

import "fmt"

func F() {
	fmt.Printf("%d\n", "x")
}
EOF
cat >"$m/typeerr/t.go" <<'EOF'
package typeerr

func G() int {
	var s string = 1
	return s
}

func K() { undefinedThing() }
EOF
cat >"$m/clean/c.go" <<'EOF'
package clean

func H() int { return 1 }
EOF
cat >"$m/clean/c_never.go" <<'EOF'
//go:build never

package clean

func bad() int { return "excluded by the build constraint" }
EOF
cat >"$m/user/u.go" <<'EOF'
package user

import "example.com/m/typeerr"

func X() int { return typeerr.G() }
EOF
# vet alone on a broken package: vet's type checker, first error only.
record "$m" go/typecheck go vet -json ./typeerr ./vetfinding ./clean
# with a dependent package, go builds typeerr and the compiler lists all.
record "$m" go/mixed go vet -json ./...
record "$m" go/clean go vet -json ./clean
record "$m" go/nopackages go vet -json ./nothing/...

d=$root/missing
mkdir -p "$d/d"
printf 'module example.com/missing\n\ngo 1.26\n' >"$d/go.mod"
printf 'package d\n\nimport "example.com/nope"\n\nvar _ = nope.X\n' >"$d/d/d.go"
record "$d" go/missingdep go vet -json ./...
# The same in the default -mod setting, as most users run it.
GOFLAGS= record "$d" go/missingdep-default go vet -json ./...

# --- cargo ---
c=$root/crate
mkdir -p "$c/src"
printf '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n' >"$c/Cargo.toml"
cat >"$c/src/lib.rs" <<'EOF'
pub fn add(a: i32, b: i32) -> i32 {
    let unused = 5;
    a + b
}

pub fn bad() -> i32 {
    let s: &str = "x";
    s
}

macro_rules! wrong {
    () => {
        let _: u8 = "macro";
    };
}

pub fn in_macro() {
    wrong!();
}
EOF
record "$c" cargo/errors cargo check --message-format=json

w=$root/ws
mkdir -p "$w/crates/member/src"
printf '[workspace]\nmembers = ["crates/member"]\nresolver = "2"\n' >"$w/Cargo.toml"
printf '[package]\nname = "member"\nversion = "0.1.0"\nedition = "2021"\n' >"$w/crates/member/Cargo.toml"
printf 'pub fn f() -> u32 {\n    "not a number"\n}\n' >"$w/crates/member/src/lib.rs"
record "$w/crates/member" cargo/workspace cargo check --message-format=json

b=$root/buildpanic
mkdir -p "$b/src"
printf '[package]\nname = "buildpanic"\nversion = "0.1.0"\nedition = "2021"\n' >"$b/Cargo.toml"
echo 'pub fn f() {}' >"$b/src/lib.rs"
echo 'fn main() { panic!("boom from build.rs"); }' >"$b/build.rs"
record "$b" cargo/buildpanic cargo check --message-format=json

k=$root/cleancrate
mkdir -p "$k/src"
printf '[package]\nname = "cleancrate"\nversion = "0.1.0"\nedition = "2021"\n' >"$k/Cargo.toml"
echo 'pub fn f() -> u32 { 1 }' >"$k/src/lib.rs"
record "$k" cargo/clean cargo check --message-format=json

# --- tsc ---
t=$root/tsproj
mkdir -p "$t/src"
cat >"$t/tsconfig.json" <<'EOF'
{
  "compilerOptions": { "strict": true, "noEmit": true, "target": "es2020", "module": "commonjs", "noUnusedLocals": true },
  "include": ["src"]
}
EOF
cat >"$t/src/a.ts" <<'EOF'
const n: number = "x";
interface P { a: number; b: string }
const p: P = { a: 1 };
function f(x: number) { const unused = 1; return x; }
export { n, p, f };
EOF
cat >"$t/src/c.ts" <<'EOF'
const fn: (x: number) => string = (x: string) => x;
export { fn };
EOF
record "$t" tsc/errors "$TSC" --noEmit --pretty false
record "$t" tsc/errors5 "$TSC5" --noEmit --pretty false
tb=$root/tsbad
mkdir -p "$tb"
echo '{"compilerOptions": {"bogusOption": true, "strict": true}, "files": ["missing.ts"]}' >"$tb/tsconfig.json"
record "$tb" tsc/config "$TSC" --noEmit --pretty false
tc=$root/tsclean
mkdir -p "$tc/src"
echo '{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}' >"$tc/tsconfig.json"
echo 'export const ok: string = "fine";' >"$tc/src/ok.ts"
record "$tc" tsc/clean "$TSC" --noEmit --pretty false

# --- pyright ---
p=$root/py
mkdir -p "$p/pkg"
printf '[project]\nname = "demo"\nversion = "0.1.0"\n' >"$p/pyproject.toml"
cat >"$p/pkg/mod.py" <<'EOF'
import os


def add(a: int, b: int) -> int:
    return a + b


x: int = "not an int"
add(1, "2")
undefined_name
EOF
printf 'def fine() -> int:\n    return 1\n' >"$p/pkg/ok.py"
record "$p" pyright/errors "$PYRIGHT" --outputjson
record "$p" pyright/clean "$PYRIGHT" --outputjson ./pkg/ok.py

# Timestamps and timings change on every run; pin them so re-recording
# shows only real differences.
sed -i -E 's/"time": "[0-9]+"/"time": "0"/; s/"timeInSec": [0-9.]+/"timeInSec": 0/' "$here"/pyright/*.stdout
sed -i -E 's/in [0-9.]+s$/in 0.00s/' "$here"/cargo/*.stderr
echo "recorded under $here"

#!/usr/bin/env bash
# Builds riot's container image without pulling from any registry (`make image`):
#   1. a base root filesystem made from Debian packages by mmdebstrap, reading
#      this machine's own apt sources, imported with podman as
#      localhost/riot-base:<hash>; skipped when that image exists, the hash
#      covering everything the base is made from;
#   2. riot and its builtin plugins as static binaries (the Makefile's build,
#      plus -trimpath), added on top by deploy/image/Containerfile.
# Environment: IMAGE (the tag to build, default localhost/riot:<version>),
# GO, BUILTINS (the Makefile passes both). podman reads
# deploy/podman/containers.conf unless CONTAINERS_CONF says otherwise.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"

GO="${GO:-go}"
BUILTINS="${BUILTINS:-$(cd plugins && for d in */cmd; do printf '%s ' "${d%/cmd}"; done)}"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$repo/deploy/podman/containers.conf}"

# What the pod needs besides riot: a shell and its tools for Bash, git for
# the model's work, bubblewrap for riot's sandbox, CA certificates for TLS.
packages=bash,coreutils,git,bubblewrap,ca-certificates
uid=65532

missing=()
command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "image: install ${missing[*]} (apt-get install ${missing[*]}) and run make image again" >&2
		exit 1
	fi
	echo "image: installing ${missing[*]}" >&2
	apt-get update >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >/dev/null
fi

# The machine's own apt sources, each file passed to mmdebstrap as is: it
# reads one-line .list and deb822 .sources files alike, by their suffix.
sources=()
if [ -f /etc/apt/sources.list ] && grep -qv '^[[:space:]]*\(#\|$\)' /etc/apt/sources.list; then
	sources+=(/etc/apt/sources.list)
fi
for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && sources+=("$f")
done
if [ ${#sources[@]} -eq 0 ]; then
	echo "image: no apt sources in /etc/apt/sources.list or /etc/apt/sources.list.d; mmdebstrap needs this machine's own" >&2
	exit 1
fi
# shellcheck disable=SC1091
suite="$(. /etc/os-release && echo "${VERSION_CODENAME:?/etc/os-release names no VERSION_CODENAME}")"

# The user riot runs as, its home, the workspace and the state dir, made in
# the root filesystem so that the image needs no RUN step.
hook="echo 'riot:x:$uid:$uid:riot:/home/riot:/bin/bash' >>\"\$1/etc/passwd\" &&
echo 'riot:x:$uid:' >>\"\$1/etc/group\" &&
mkdir -p \"\$1/workspace\" \"\$1/home/riot\" \"\$1/var/lib/riot\" &&
chown $uid:$uid \"\$1/workspace\" \"\$1/home/riot\" \"\$1/var/lib/riot\""
mmargs=(
	--variant=minbase
	--include="$packages"
	--dpkgopt='path-exclude=/usr/share/man/*'
	--dpkgopt='path-exclude=/usr/share/locale/*'
	--dpkgopt='path-exclude=/usr/share/doc/*'
	--dpkgopt='path-include=/usr/share/doc/*/copyright'
	--customize-hook="$hook"
	--aptopt='Acquire::Retries "3"'
)
# The base's identity: everything it is made from. Package versions move
# with the sources; a new snapshot there changes the sources, and the hash.
hash="$({
	printf '%s\n' "$suite" "${mmargs[@]}"
	cat "${sources[@]}"
} | sha256sum | cut -c1-16)"
base="localhost/riot-base:$hash"

if podman image exists "$base"; then
	echo "image: base $base exists (same packages and sources)" >&2
else
	work="$(mktemp -d /var/tmp/riot-image.XXXXXX)"
	trap 'rm -rf "$work"' EXIT
	echo "image: mmdebstrap $suite ($packages) from ${sources[*]}" >&2
	mmdebstrap --quiet "${mmargs[@]}" "$suite" "$work/rootfs.tar" "${sources[@]}"
	podman import --quiet --change "LABEL riot.base.hash=$hash" "$work/rootfs.tar" "$base" >/dev/null
	rm -rf "$work"
	trap - EXIT
fi

# riot's binaries, static, in a build context of their own.
ctx="$(mktemp -d /var/tmp/riot-image-ctx.XXXXXX)"
trap 'rm -rf "$ctx"' EXIT
build=(env CGO_ENABLED=0 "$GO" build -buildvcs=auto -trimpath)
"${build[@]}" -o "$ctx/riot" ./cmd/riot
for p in $BUILTINS; do
	"${build[@]}" -o "$ctx/riot-tool-$p" "./plugins/$p/cmd/riot-tool-$p"
done
cp "$here/Containerfile" "$ctx/Containerfile"

# The labels come from the binary itself: `riot version` prints
# "riot VERSION (commit REV[+dirty], ...)".
line="$("$ctx/riot" version)"
version="$(echo "$line" | awk '{print $2}')"
revision="$(echo "$line" | sed -n 's/.*(commit \([^,]*\),.*/\1/p')"
revision="${revision:-unknown}"
IMAGE="${IMAGE:-localhost/riot:$version}"

# The same binaries on the same base make the same image: skip the build.
content="$({
	echo "$base"
	cd "$ctx" && sha256sum -- *
} | sha256sum | cut -c1-16)"
old="$(podman image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)"
if [ -n "$old" ] && [ "$(podman image inspect --format '{{index .Labels "riot.content.hash"}}' "$IMAGE")" = "$content" ]; then
	echo "image: $IMAGE is up to date (riot $version, commit $revision, base $base)" >&2
	echo "$IMAGE"
	exit 0
fi
podman build --quiet --pull=never \
	--build-arg "BASE=$base" \
	--build-arg "VERSION=$version" \
	--build-arg "REVISION=$revision" \
	--label "riot.content.hash=$content" \
	--tag "$IMAGE" "$ctx" >/dev/null
# The image the tag named before is dangling now; one a container still
# uses stays.
if [ -n "$old" ] && [ "$old" != "$(podman image inspect --format '{{.Id}}' "$IMAGE")" ]; then
	podman rmi "$old" >/dev/null 2>&1 || true
fi
echo "image: built $IMAGE (riot $version, commit $revision, base $base)" >&2
echo "$IMAGE"

#!/usr/bin/env bash
# Release archives, the ones `cargo binstall tmuxwire` downloads (Cargo.toml,
# [package.metadata.binstall]):
#
#   tools/release-archives.sh [-o DIR] [TARGET[=BINARY]]...
#
#   (no TARGET)      the host's target, built here with `cargo build --release --locked`
#   TARGET           built with `cargo build --release --locked --target TARGET` (needs that
#                    target's standard library and linker: `rustup target add TARGET`)
#   TARGET=BINARY    an already built binary for TARGET, such as the one a wheel build left
#                    (`maturin build --release --zig` puts it in target/TARGET/release/tmuxwire)
#
# For each target, DIR (default target/release-archives) gets
#
#   tmuxwire-<version>-<target>.tar.gz          the archive, holding one directory:
#       tmuxwire-<version>-<target>/tmuxwire                      the binary
#       tmuxwire-<version>-<target>/README.md
#       tmuxwire-<version>-<target>/completions/tmuxwire.bash     bash
#       tmuxwire-<version>-<target>/completions/_tmuxwire         zsh
#       tmuxwire-<version>-<target>/completions/tmuxwire.fish     fish
#       tmuxwire-<version>-<target>/man/man1/tmuxwire*.1          the man pages
#   tmuxwire-<version>-<target>.tar.gz.sha256   its SHA-256, as `sha256sum` prints it
#
# and they are attached to the release tagged v<version>. <version> is Cargo.toml's, <target>
# a Rust target triple (x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu, aarch64-apple-darwin,
# x86_64-apple-darwin). The completions and man pages are the program's own (`tmuxwire
# completions SHELL`, `tmuxwire man --dir`), made by a binary that runs here: BINARY when it
# does, else a host build. The archives are reproducible: files sorted, owner 0, times from
# SOURCE_DATE_EPOCH (default: the last commit's time), gzip without a name or time.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."

out=target/release-archives
specs=()
while [ $# -gt 0 ]; do
    case $1 in
    -o)
        out=${2:?-o needs a directory}
        shift 2
        ;;
    -h | --help)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    -*)
        echo "release-archives: unknown option $1 (see --help)" >&2
        exit 2
        ;;
    *)
        specs+=("$1")
        shift
        ;;
    esac
done

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
host=$(rustc -vV | sed -n 's/^host: //p')
[ -n "$version" ] && [ -n "$host" ] || {
    echo "release-archives: cannot read the version (Cargo.toml) or the host target (rustc -vV)" >&2
    exit 2
}
[ ${#specs[@]} -gt 0 ] || specs=("$host")
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
mkdir -p "$out"
out=$(cd "$out" && pwd)

host_bin="" # a binary that runs here, for the completions and man pages
runs_here() { "$1" --version >/dev/null 2>&1; }

for spec in "${specs[@]}"; do
    target=${spec%%=*}
    if [ "$spec" != "$target" ]; then
        bin=${spec#*=}
        [ -x "$bin" ] || {
            echo "release-archives: $bin is not an executable" >&2
            exit 2
        }
    elif [ "$target" = "$host" ]; then
        cargo build --release --locked
        bin=target/release/tmuxwire
    else
        cargo build --release --locked --target "$target"
        bin=target/$target/release/tmuxwire
    fi
    gen=$bin
    if ! runs_here "$gen"; then
        if [ -z "$host_bin" ]; then
            cargo build --release --locked
            host_bin=target/release/tmuxwire
        fi
        gen=$host_bin
    fi
    [ -n "$host_bin" ] || host_bin=$gen

    name=tmuxwire-$version-$target
    stage=$(mktemp -d)
    trap 'rm -rf "$stage"' EXIT
    dir=$stage/$name
    mkdir -p "$dir/completions" "$dir/man/man1"
    cp "$bin" "$dir/tmuxwire"
    cp README.md "$dir/"
    "$gen" completions bash >"$dir/completions/tmuxwire.bash"
    "$gen" completions zsh >"$dir/completions/_tmuxwire"
    "$gen" completions fish >"$dir/completions/tmuxwire.fish"
    "$gen" man --dir "$dir/man/man1" >/dev/null
    chmod 755 "$dir/tmuxwire"
    find "$dir" -type d -exec chmod 755 {} +
    find "$dir" -type f ! -name tmuxwire -exec chmod 644 {} +
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
        -C "$stage" -cf - "$name" | gzip -n -9 >"$out/$name.tar.gz"
    (cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
    rm -rf "$stage"
    trap - EXIT
    echo "$out/$name.tar.gz ($(stat -c %s "$out/$name.tar.gz") bytes, sha256 $(cut -d' ' -f1 "$out/$name.tar.gz.sha256"))"
done

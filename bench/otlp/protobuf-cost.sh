#!/usr/bin/env bash
# What swift-protobuf's runtime would cost the agent, which writes its protobuf by hand (remote
# write's WriteRequest, OTLP's metrics request): two throwaway programs built with the agent's
# release flags (Makefile RELEASE_FLAGS), one that serialises 500 nested messages with
# SwiftProtobuf's own generated well-known types (Struct, Value, ListValue: no protoc needed) and
# one that writes the same bytes' worth by hand. Prints their executables' code (`size`),
# stripped sizes, peak RSS, and whether each links Foundation (the agent does not).
# Usage: bench/otlp/protobuf-cost.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/bench/need.sh"
need /usr/bin/time time
need size binutils
work=$(mktemp -d "/tmp/pathwatch-bench-protobuf.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources/WithProtobuf" "$work/Sources/ByHand"
cat > "$work/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "protobufcost",
    dependencies: [.package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0")],
    targets: [
        .executableTarget(
            name: "WithProtobuf", dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")]),
        .executableTarget(name: "ByHand"),
    ])
SWIFT
cat > "$work/Sources/WithProtobuf/main.swift" <<'SWIFT'
import SwiftProtobuf
var points = Google_Protobuf_ListValue()
for i in 0..<500 {
    var point = Google_Protobuf_Struct()
    point.fields["check"] = Google_Protobuf_Value(stringValue: "disk/root")
    point.fields["value"] = Google_Protobuf_Value(numberValue: Double(i))
    points.values.append(Google_Protobuf_Value(structValue: point))
}
let bytes: [UInt8] = try points.serializedBytes()
print(bytes.count)
SWIFT
cat > "$work/Sources/ByHand/main.swift" <<'SWIFT'
var bytes: [UInt8] = []
for i in 0..<500 {
    bytes += [0x0A, 9] + Array("disk/root".utf8) + [0x11]
    withUnsafeBytes(of: Double(i).bitPattern.littleEndian) { bytes += $0 }
}
print(bytes.count)
SWIFT
(cd "$work" && swift build -c release -Xswiftc -Osize --experimental-lto-mode=full \
    -Xlinker -z -Xlinker pack-relative-relocs >/dev/null)
printf '%-13s %12s %14s %12s %s\n' program "code (text)" "stripped size" "peak RSS" "links Foundation"
for program in WithProtobuf ByHand; do
    binary="$work/.build/release/$program"
    text=$(size "$binary" | awk 'NR == 2 { print $1 }')
    strip -o "$work/$program.stripped" "$binary"
    stripped=$(stat -c %s "$work/$program.stripped")
    rss=$( { /usr/bin/time -f '%M' "$binary" >/dev/null; } 2>&1 | tail -n 1)
    foundation=$(ldd "$binary" | grep -q 'libFoundation\.so' && echo yes || echo no)
    printf '%-13s %12s %14s %9s KiB %s\n' "$program" "$text" "$stripped" "$rss" "$foundation"
done

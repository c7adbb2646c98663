// Pathwatch's release version, read from docs/changelog.md at build time.
//
// The changelog's newest release heading (`## 0.2.0 — 2026-11-28`) is the one place a release is
// named: writing a release's entry is what moves the version, and the agent (`--version`,
// `pathwatch_build_info`, the status document) and the package (`make deb`) read it from there.
// Before, the version was a constant in the source that no release changed.
//
//     release-version CHANGELOG OUTPUT   writes OUTPUT, a Swift file declaring `Release.version`
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: release-version CHANGELOG OUTPUT\n".utf8))
    exit(2)
}
let changelog = arguments[1]
let output = arguments[2]

guard let text = try? String(contentsOfFile: changelog, encoding: .utf8) else {
    FileHandle.standardError.write(Data("error: \(changelog): cannot be read\n".utf8))
    exit(1)
}

/// The version of a `## X.Y.Z …` heading: three dot-separated numbers, then a space or the end.
func releaseVersion(ofHeading line: Substring) -> String? {
    guard line.hasPrefix("## ") else { return nil }
    let version = line.dropFirst(3).prefix { $0 != " " }
    let parts = version.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
    else { return nil }
    return String(version)
}

guard
    let (number, version) = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        .lazy.compactMap({ entry in releaseVersion(ofHeading: entry.element).map { (entry.offset + 1, $0) } }).first
else {
    FileHandle.standardError.write(
        Data("error: \(changelog): no release heading (a line such as \"## 0.2.0 — 2026-11-28\")\n".utf8))
    exit(1)
}

let source = """
    // Generated at build time from docs/changelog.md, line \(number): the newest release heading.
    /// The release this build is: the newest heading of docs/changelog.md.
    package enum Release {
        package static let version = "\(version)"
    }

    """
// Rewritten only when it changes, so that a changelog edit within a release rebuilds nothing.
if (try? String(contentsOfFile: output, encoding: .utf8)) != source {
    do {
        try source.write(toFile: output, atomically: true, encoding: .utf8)
    } catch {
        FileHandle.standardError.write(Data("error: \(output): \(error)\n".utf8))
        exit(1)
    }
}

import Foundation
import PathwatchTestSupport
import Testing

/// The `.deb` as Debian's own tools judge it, on this machine, without installing it: lintian
/// finds no error and only the warnings docs/operating.md lists with their reasons; the control
/// file names every library the agent opens at run time; the copyright file is machine-readable
/// (DEP-5) and grants Apache-2.0 for Pathwatch's own files; the changelog is a valid Debian
/// changelog for the package's version.
@Suite(.enabled(if: Distribution.missingInputs == nil, "\(Distribution.missingInputs ?? "")"), .onItsOwnThread)
struct DebianPolicyTests {
    /// What lintian reports, as (severity letter, tag, the rest of the line).
    struct Hint: Hashable {
        let severity: Character
        let tag: String
        let detail: String
    }

    @Test(.enabled(if: Self.lintianMissing == nil, "\(Self.lintianMissing ?? "")"))
    func lintianFindsNoErrorAndOnlyTheDocumentedWarnings() throws {
        let deb = try Distribution.sharedDeb()
        // --fail-on none: the verdict is this test's, from the hints, not lintian's exit status.
        let result = try run(["lintian", "--fail-on", "none", "--no-tag-display-limit", deb.path], timeout: 900)
        #expect(!result.timedOut, "lintian did not finish: \(result.stderr)")
        let hints = Self.hints(in: result.stdout)
        let errors = hints.filter { $0.severity == "E" }
        #expect(errors.isEmpty, "lintian's errors:\n\(errors.map { "\($0.tag) \($0.detail)" }.joined(separator: "\n"))")
        let warned = Set(hints.filter { $0.severity == "W" }.map(\.tag))
        let documented = try Self.documentedWarnings()
        #expect(
            warned.subtracting(documented).isEmpty,
            "lintian warns of what docs/operating.md does not list: \(warned.subtracting(documented).sorted())\n\(result.stdout)"
        )
        #expect(
            documented.subtracting(warned).isEmpty,
            "docs/operating.md lists warnings lintian no longer gives: \(documented.subtracting(warned).sorted())")
    }

    @Test func dependsOnEveryLibraryItOpensAtRunTime() throws {
        let deb = try Distribution.sharedDeb()
        let depends = try run(["dpkg-deb", "--field", deb.path, "Depends"]).stdout
        let names = Set(
            depends.split(separator: ",").compactMap { $0.split(whereSeparator: \.isWhitespace).first.map(String.init) }
        )
        // dlopen'd, so dpkg-shlibdeps cannot see them: libcurl (HTTP), libsystemd (sd_notify),
        // libsnappy (remote_write), zlib (otlp's gzip), libcrypt (basic-auth users). A recommendation would leave a
        // host installed without recommendations with a sink that cannot start.
        for library in ["libcurl4", "libsystemd0", "libsnappy1v5", "zlib1g", "libcrypt1"] {
            #expect(names.contains(library), "Depends: \(depends)")
        }
        let recommends = try run(["dpkg-deb", "--field", deb.path, "Recommends"]).stdout
        #expect(!recommends.contains("libsnappy1v5"), "Recommends: \(recommends)")
    }

    @Test func shipsAMachineReadableCopyrightAndADebianChangelog() throws {
        let deb = try Distribution.sharedDeb()
        let copyright = try Self.member(deb, "usr/share/doc/pathwatch/copyright", gzipped: false)
        let paragraphs = copyright.components(separatedBy: "\n\n").map(Self.fields).filter { !$0.isEmpty }
        #expect(
            paragraphs.first?["Format"] == "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/",
            "\(copyright.prefix(200))")
        let files = paragraphs.filter { $0["Files"] != nil }
        #expect(files.first?["Files"] == "*", "the first Files paragraph covers every file")
        // Pathwatch's own files (every file no later paragraph names) are Apache-2.0.
        #expect(
            files.first?["License"] == "Apache-2.0" && !copyright.contains("none-granted"),
            "License of Files: *: \(files.first?["License"] ?? "none")")
        // Every license named by a Files paragraph has a stand-alone License paragraph with its text.
        // (A License field's first line is the name; the lines after it, the text.)
        func name(_ license: String?) -> String { String((license ?? "").prefix { $0 != "\n" }) }
        let defined = Set(
            paragraphs.filter { $0["Files"] == nil && ($0["License"] ?? "").contains("\n") }.map { name($0["License"]) }
        )
        for paragraph in files {
            #expect(paragraph["Copyright"].map { !$0.isEmpty } == true, "no Copyright: \(paragraph)")
            let names = name(paragraph["License"]).components(separatedBy: " and ").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            #expect(
                !names.isEmpty && names.allSatisfy(defined.contains),
                "License: \(paragraph["License"] ?? "none"); defined: \(defined.sorted())")
        }

        let changelog = try Self.member(deb, "usr/share/doc/pathwatch/changelog.gz", gzipped: true)
        let parsed = try run(["dpkg-parsechangelog", "-l-"], input: changelog)
        #expect(parsed.status == 0 && parsed.stderr.isEmpty, "dpkg-parsechangelog: \(parsed.stderr)\n\(changelog)")
        let entry = Self.fields(parsed.stdout)
        #expect(entry["Source"] == "pathwatch" && entry["Version"] == Distribution.version, "\(parsed.stdout)")
        // One entry per release of docs/changelog.md, newest first.
        let all = try run(["dpkg-parsechangelog", "-l-", "--all", "-S", "Changes"], input: changelog)
        let versions = all.stdout.split(separator: "\n").compactMap { line -> String? in
            let entry = line.drop { $0 == " " }
            guard entry.hasPrefix("pathwatch ("), let close = entry.firstIndex(of: ")") else { return nil }
            return String(entry[entry.index(entry.startIndex, offsetBy: 11)..<close])
        }
        #expect(versions == Distribution.releases, "entries \(versions), releases \(Distribution.releases)")
    }

    // MARK: helpers

    /// Why lintian cannot run here, or nil.
    static let lintianMissing: String? =
        (try? run(["sh", "-c", "command -v lintian"]).status) == 0
        ? nil : "needs lintian: run `make test-deps` (Debian's lintian)"

    /// lintian's lines `E: pathwatch: tag detail…` and `W: pathwatch [deb]: tag detail…`.
    static func hints(in output: String) -> [Hint] {
        output.split(separator: "\n").compactMap { line -> Hint? in
            guard let severity = line.first, "EWIPX".contains(severity), line.dropFirst().hasPrefix(": ") else {
                return nil
            }
            let afterPackage = (line.split(separator: ":", maxSplits: 2).dropFirst(2).first ?? "").trimmingCharacters(
                in: .whitespaces)
            let words = afterPackage.split(separator: " ", maxSplits: 1)
            guard let tag = words.first else { return nil }
            return Hint(severity: severity, tag: String(tag), detail: words.count > 1 ? String(words[1]) : "")
        }
    }

    /// The tags of the table under "What lintian says" in docs/operating.md (first column, in
    /// backquotes): the warnings left, each with its reason.
    static func documentedWarnings() throws -> Set<String> {
        let text = try String(
            contentsOf: Distribution.root.appendingPathComponent("docs/operating.md"), encoding: .utf8)
        guard let start = text.range(of: "### What lintian says") else {
            throw TestFailure("docs/operating.md has no section \"What lintian says\"")
        }
        let section = text[start.upperBound...]
        let end = section.range(of: "\n#")?.lowerBound ?? section.endIndex
        return Set(
            section[..<end].split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("| `"), let close = line.dropFirst(3).firstIndex(of: "`") else { return nil }
                return String(line[line.index(line.startIndex, offsetBy: 3)..<close])
            })
    }

    /// A file of the package, read without installing it.
    static func member(_ deb: URL, _ path: String, gzipped: Bool) throws -> String {
        let result = try run(
            [
                "sh", "-c", "dpkg-deb --fsys-tarfile \"$1\" | tar -xO \"./$2\"\(gzipped ? " | gunzip" : "")", "sh",
                deb.path, path,
            ], timeout: 120)
        guard result.status == 0 else { throw TestFailure("\(path) from the package: \(result.stderr)") }
        return result.stdout
    }

    /// The fields of one deb822 paragraph; a continuation line (leading space) joins its field.
    static func fields(_ paragraph: String) -> [String: String] {
        var fields: [String: String] = [:]
        var last: String?
        for line in paragraph.split(separator: "\n") {
            if line.first == " ", let name = last {
                fields[name, default: ""] += (fields[name, default: ""].isEmpty ? "" : "\n") + line.dropFirst()
            } else if let colon = line.firstIndex(of: ":") {
                let name = String(line[..<colon])
                fields[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                last = name
            }
        }
        return fields
    }
}

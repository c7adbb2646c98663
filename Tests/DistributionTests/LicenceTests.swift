import Foundation
import PathwatchTestSupport
import Testing

/// Pathwatch's own files are Apache-2.0: the repository holds the licence's full text (and the
/// SDK, which authors copy into their own packages, holds it too), and the package's copyright
/// file says so for every file it does not name otherwise. Read from the repository, so these run
/// without a release build; DebianPolicyTests checks the same file inside the built package.
@Suite struct LicenceTests {
    static let files = RepositoryFiles(root: Distribution.root)

    @Test func theRepositoryAndTheSDKHoldTheApacheLicenceText() throws {
        let licence = try Self.files.text("LICENSE")
        for expected in [
            "Apache License", "Version 2.0, January 2004",
            "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION",
            "9. Accepting Warranty or Additional Liability.", "END OF TERMS AND CONDITIONS",
        ] {
            #expect(licence.contains(expected), "LICENSE lacks \"\(expected)\"")
        }
        #expect(try Self.files.text("SDK/LICENSE") == licence, "SDK/LICENSE differs from LICENSE")
        // install.sh copies the SDK package with its licence (InstallLayoutTests checks the result).
        #expect(try Self.files.text("dist/install.sh").contains("find LICENSE Package.swift Sources Tests"))
    }

    @Test func theCopyrightFileGrantsApacheForPathwatchsOwnFiles() throws {
        let copyright = try Self.files.text("dist/deb/copyright")
        #expect(!copyright.contains("none-granted"), "a licence no longer in force is still named")
        let paragraphs = copyright.components(separatedBy: "\n\n").map(DebianPolicyTests.fields)
        let files = paragraphs.filter { $0["Files"] != nil }
        func name(_ license: String?) -> String { String((license ?? "").prefix { $0 != "\n" }) }
        #expect(files.first?["Files"] == "*" && name(files.first?["License"]) == "Apache-2.0", "\(files.first ?? [:])")
        // The binaries are Pathwatch's code with the third-party packages linked in.
        let binaries = files.first { ($0["Files"] ?? "").contains("usr/bin/pathwatch") }
        let names = name(binaries?["License"]).components(separatedBy: " and ")
        #expect(
            Set(names) == ["Apache-2.0", "Apache-2.0-with-Runtime-Library-Exception", "Expat"],
            "\(binaries?["License"] ?? "no paragraph for usr/bin/pathwatch")")
        // Each name has its stand-alone paragraph with the text (or where Debian keeps it).
        let defined = paragraphs.filter { $0["Files"] == nil && $0["License"] != nil }.map { name($0["License"]) }
        #expect(Set(defined) == ["Apache-2.0", "Apache-2.0-with-Runtime-Library-Exception", "Expat"], "\(defined)")
    }
}

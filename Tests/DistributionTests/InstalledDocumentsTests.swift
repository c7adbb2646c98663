import Foundation
import PathwatchTestSupport
import Testing

/// What a user of the installed package can read: the documents under /usr/share/doc/pathwatch
/// (those dist/doc-files.sh lists, which make-deb.sh installs) link only to each other, and the
/// man page (the command's --help, from which it is generated) covers plug-ins and says where
/// those documents are.
@Suite struct InstalledDocumentsTests {
    static var root: URL { Distribution.root }

    /// The relative link targets in a Markdown text, without their `#fragment`.
    static func relativeLinks(in text: String) -> [String] {
        var links: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "](") {
            rest = rest[open.upperBound...]
            guard let close = rest.firstIndex(of: ")") else { break }
            let target = String(rest[..<close])
            if target.isEmpty || target.contains(" ") || target.contains("://") || target.hasPrefix("mailto:")
                || target.hasPrefix("#")
            {
                continue
            }
            links.append(String(target.prefix { $0 != "#" }))
        }
        return links
    }

    @Test func everyLinkOfAnInstalledDocumentLeadsToAnInstalledFile() throws {
        let listed = try run([Self.root.appendingPathComponent("dist/doc-files.sh").path])
        #expect(listed.status == 0, "\(listed.stderr)")
        let installed = Set(listed.stdout.split(separator: "\n").map(String.init))
        #expect(
            installed.isSuperset(of: [
                "README.md", "docs/plugins.md", "docs/configuration.md", "Plugins/Ping/README.md",
            ]))
        var broken: [String] = []
        for file in installed.sorted() where file.hasSuffix(".md") {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            let folder = URL(fileURLWithPath: "/doc").appendingPathComponent(file).deletingLastPathComponent()
            for link in Self.relativeLinks(in: text) {
                let target = String(
                    folder.appendingPathComponent(link).standardizedFileURL.path.dropFirst("/doc/".count))
                let isFolder = installed.contains { $0.hasPrefix(target.hasSuffix("/") ? target : target + "/") }
                if !installed.contains(target) && !isFolder { broken.append("\(file): \(link)") }
            }
        }
        #expect(broken.isEmpty, "links to files the package does not install: \(broken)")
    }

    @Test func theManPageHasAPluginSectionAndPointsToTheDocuments() throws {
        let help = try run([TestEnvironment.pathwatchBinary.path, "--help"])
        #expect(help.status == 0, "\(help.stderr)")
        // Help text is wrapped to the terminal's width: compare it with its line breaks as spaces.
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for expected in [
            "Plug-ins:", "plugins --try", "--probe-config", "/usr/include/pathwatch/pathwatch_probe.h",
            "/usr/share/doc/pathwatch/README.md", "plugins.md",
        ] {
            #expect(text.contains(expected), "missing \"\(expected)\" in:\n\(help.stdout)")
        }
    }
}

import Foundation
import PathwatchTestSupport
import Testing

/// The documents hold together without a build: the walkthroughs the distribution tests run are
/// where those tests read them, every relative link in README.md and docs/ names a file of the
/// repository, and the README stays a short front page.
@Suite struct DocumentationTests {
    static var root: URL { Distribution.root }

    static var documents: [URL] {
        let docs = root.appendingPathComponent("docs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
        return [root.appendingPathComponent("README.md")]
            + names.filter { $0.hasSuffix(".md") }.sorted().map { docs.appendingPathComponent($0) }
    }

    @Test func theWalkthroughsAreInDocsPlugins() throws {
        let plugins = Self.root.appendingPathComponent("docs/plugins.md")
        let c = try Walkthrough(document: plugins, prefix: "walkthrough-c")
        #expect(Set(c.blocks.keys) == ["uptime.c", "commands"])
        #expect(try c.block("uptime.c").contains("pathwatch_probe_entry"))
        let swift = try Walkthrough(document: plugins, prefix: "walkthrough-swift")
        #expect(Set(swift.blocks.keys) == ["Package.swift", "Sources/Uptime/Uptime.swift", "Tests/UptimeTests/UptimeTests.swift", "commands"])
    }

    @Test func everyRelativeLinkResolves() throws {
        #expect(Self.documents.count > 5)
        var broken: [String] = []
        for document in Self.documents {
            let text = try String(contentsOf: document, encoding: .utf8)
            var rest = Substring(text)
            while let open = rest.range(of: "](") {
                rest = rest[open.upperBound...]
                guard let close = rest.firstIndex(of: ")") else { break }
                let target = String(rest[..<close])
                if target.isEmpty || target.contains(" ") || target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:") || target.hasPrefix("#") { continue }
                let path = String(target.prefix { $0 != "#" })
                let resolved = document.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
                if !FileManager.default.fileExists(atPath: resolved.path) { broken.append("\(document.lastPathComponent): \(target)") }
            }
        }
        #expect(broken.isEmpty, "\(broken)")
    }

    @Test func theReadmeIsAShortFrontPageThatStartsWithTheTwoCommands() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 300)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).prefix(6).map(String.init)
        #expect(lines[0] == "# Pathwatch" && lines[2] == "```sh" && lines[5] == "```")
        #expect(lines[3].hasPrefix("make run ") && lines[4].hasPrefix("make test "))
    }
}

import Foundation
import PathwatchTestSupport
import Testing

/// The documents hold together without a build: the map of the code names every module folder
/// and nothing that is gone, every citation of the contract names a section it has, the design
/// notes name every sink module, every relative link finds its file and heading, the walkthroughs
/// the distribution tests run are where those tests read them, and the README stays a short
/// front page. Each failure names the file, the line and what is missing.
@Suite struct DocumentationTests {
    static var root: URL { Distribution.root }
    static var repository: RepositoryFiles { RepositoryFiles(root: root) }

    @Test func theMapNamesEveryModuleFolderAndNothingThatIsGone() throws {
        let file = "docs/map-of-the-code.md"
        let map = CodeMap(text: try Self.repository.text(file))
        let required = CodeMap.requiredFolders(in: Self.repository)
        #expect(required.contains("Sources/PathwatchSinkKit/Support") && required.contains("Plugins/Exec/CSpawn"))
        let findings = map.findings(file: file, required: required, exists: Self.repository.exists)
        #expect(findings.isEmpty, "\(findings.report)")
    }

    @Test func everyContractCitationNamesASectionTheContractHas() throws {
        let contract = Contract(text: try Self.repository.text(Contract.file))
        #expect(contract.sections.keys.sorted() == Array(1...9))
        var cited = 0
        var findings: [DocumentFinding] = []
        for file in Self.citingFiles {
            let text = try Self.repository.text(file)
            cited += text.components(separatedBy: Contract.citation).count - 1
            findings += contract.findings(in: text, file: file)
        }
        #expect(cited > 50)
        #expect(findings.isEmpty, "\(findings.report)")
    }

    @Test func theDesignNotesNameEverySinkModule() throws {
        let file = "docs/design.md"
        let modules = try Self.sinkModules()
        #expect(modules.contains("PathwatchWebhook") && modules.contains("PathwatchStdoutSink"))
        let lines = numberedLines(try Self.repository.text(file))
        let named = { (module: String) in lines.filter { $0.text.contains("`\(module)`") }.map(\.number) }
        // A missing module belongs on the line that lists the others.
        let listLine = modules.map(named).max { $0.count < $1.count }?.first ?? 1
        let findings = modules.filter { named($0).isEmpty }.map {
            DocumentFinding(file: file, line: listLine, what: "names no sink module `\($0)` (Sources/\($0))")
        }
        #expect(findings.isEmpty, "\(findings.report)")
    }

    @Test func everyRelativeLinkFindsItsFileAndHeading() throws {
        let documents = Self.markdownDocuments
        #expect(documents.contains("README.md") && documents.contains("docs/contract.md"))
        var findings: [DocumentFinding] = []
        var followed = 0
        for document in documents {
            let links = MarkdownLinks(text: try Self.repository.text(document))
            followed += links.links.count
            findings += try Self.brokenLinks(links, in: document)
        }
        #expect(followed > 50)
        #expect(findings.isEmpty, "\(findings.report)")
    }

    @Test func theWalkthroughsAreInDocsPlugins() throws {
        let plugins = Self.root.appendingPathComponent("docs/plugins.md")
        let c = try Walkthrough(document: plugins, prefix: "walkthrough-c")
        #expect(Set(c.blocks.keys) == ["uptime.c", "commands"])
        #expect(try c.block("uptime.c").contains("pathwatch_probe_entry"))
        let swift = try Walkthrough(document: plugins, prefix: "walkthrough-swift")
        #expect(
            Set(swift.blocks.keys) == [
                "Package.swift", "Sources/Uptime/Uptime.swift", "Tests/UptimeTests/UptimeTests.swift", "commands",
            ])
    }

    @Test func theReadmeIsAShortFrontPageThatStartsWithTheTwoCommands() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 300)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).prefix(6).map(String.init)
        #expect(lines[0] == "# Pathwatch" && lines[2] == "```sh" && lines[5] == "```")
        #expect(lines[3].hasPrefix("make run ") && lines[4].hasPrefix("make test "))
    }
}

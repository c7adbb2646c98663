import Testing

/// The checks themselves find what is wrong: each is shown a small document with the faults it
/// exists for, and must name each at its line. (Section signs are written `\u{A7}` here, so this
/// file's own examples are not read as citations of the contract.)
extension DocumentationTests {
    @Test func theMapCheckFindsAMissingFolderAndAGoneOne() {
        let map = CodeMap(
            text: """
                # Map
                ```
                Sources/                        the modules
                  CCurl/, CJSONC/               system libraries
                  PathwatchAgent/               the core
                    Config/                     loading; Process/ starts children
                  Gone/                         removed long ago
                ```
                """)
        let required = [
            "Sources/CCurl", "Sources/CJSONC", "Sources/PathwatchAgent", "Sources/PathwatchAgent/Config",
            "Sources/PathwatchAgent/Support", "Sources/PathwatchDigest",
        ]
        let findings = map.findings(file: "map.md", required: required) {
            !$0.contains("Gone") && !$0.contains("Process")
        }
        #expect(
            findings.map(\.description) == [
                "map.md:5: names no folder Sources/PathwatchAgent/Support/ (under Sources/PathwatchAgent/)",
                "map.md:3: names no folder Sources/PathwatchDigest/ (under Sources/)",
                "map.md:6: names Sources/PathwatchAgent/Config/Process/, which does not exist",
                "map.md:7: names Sources/Gone/, which does not exist",
            ])
    }

    @Test func theCitationCheckFindsAMissingSectionAPartItLacksAndTheFormerForm() {
        let contract = Contract(
            text: "# Contract\n## 1. One\nsee \u{A7}2, \u{A7}4\n## 2. Two\n**Deadlines.** Every call.\n")
        #expect(contract.sections.keys.sorted() == [1, 2])
        let citing = """
            a (contract \u{A7}2 "Deadlines")
            b (contract \u{A7}1, \u{A7}3)
            c (contract \u{A7}1 "Deadlines"), contract \u{A7}2 `timeout`
            d (SPEC \u{A7}2)
            """
        #expect(
            contract.findings(in: citing, file: "a.swift").map(\.description) == [
                "a.swift:2: cites \u{A7}3, which docs/contract.md does not have",
                "a.swift:3: cites Deadlines in \u{A7}1, which does not say it",
                "a.swift:3: cites `timeout` in \u{A7}2, which does not say it",
                "a.swift:4: cites \"SPEC \u{A7}…\": the contract is docs/contract.md, cited as \"contract \u{A7}N\"",
            ])
        let own = contract.findings(in: "# Contract\n## 1. One\nsee \u{A7}2, \u{A7}4\n", file: Contract.file)
        #expect(own.map(\.description) == ["docs/contract.md:3: cites \u{A7}4, which docs/contract.md does not have"])
    }

    @Test func theLinkCheckFindsAMissingFileAndAMissingHeading() throws {
        let links = MarkdownLinks(
            text: """
                # Here and `there`
                [a](missing.md), [b](design.md#no-such-heading), [c](#here-and-there), [d](#gone)
                [web](https://example.com) [e](<map-of-the-code.md> "title")
                ```
                [f](inside-code.md)
                ```
                """)
        #expect(
            links.links.map(\.target) == [
                "missing.md", "design.md#no-such-heading", "#here-and-there", "#gone", "map-of-the-code.md",
            ])
        #expect(
            try Self.brokenLinks(links, in: "docs/page.md").map(\.description) == [
                "docs/page.md:2: links to missing.md: no file docs/missing.md",
                "docs/page.md:2: links to design.md#no-such-heading: no heading #no-such-heading in docs/design.md",
                "docs/page.md:2: links to #gone: no heading #gone in docs/page.md",
            ])
        let anchor = MarkdownLinks.anchor(ofHeading:)
        #expect(anchor("Why SwiftNIO, not Hummingbird or FlyingFox") == "why-swiftnio-not-hummingbird-or-flyingfox")
        #expect(anchor("Configuration lookup and `conf.d`") == "configuration-lookup-and-confd")
        #expect(Self.resolve("../README.md", from: "docs/live-agent.md") == "README.md")
    }
}

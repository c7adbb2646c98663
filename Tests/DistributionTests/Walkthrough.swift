import Foundation
import PathwatchTestSupport

/// The README's out-of-tree walkthrough: the fenced block after each `<!-- walkthrough-c: NAME -->`
/// marker. The package test runs exactly these, so the README cannot drift from what works.
struct Walkthrough {
    var blocks: [String: String]

    init(readme: URL, prefix: String) throws {
        let text = try String(contentsOf: readme, encoding: .utf8)
        var blocks: [String: String] = [:]
        var rest = Substring(text)
        while let marker = rest.range(of: "<!-- \(prefix): ") {
            let afterMarker = rest[marker.upperBound...]
            guard let end = afterMarker.range(of: " -->") else { break }
            let name = String(afterMarker[..<end.lowerBound])
            let afterEnd = afterMarker[end.upperBound...]
            guard let fence = afterEnd.range(of: "```"), let lineEnd = afterEnd[fence.upperBound...].firstIndex(of: "\n"),
                  let close = afterEnd[lineEnd...].range(of: "\n```")
            else { break }
            blocks[name] = String(afterEnd[afterEnd.index(after: lineEnd)..<close.lowerBound]) + "\n"
            rest = afterEnd[close.upperBound...]
        }
        self.blocks = blocks
    }

    func block(_ name: String) throws -> String {
        guard let block = blocks[name] else { throw TestFailure("README has no walkthrough block \"\(name)\"") }
        return block
    }
}

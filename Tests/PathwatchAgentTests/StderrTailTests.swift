import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost
@testable import PathwatchSinkKit

/// The last lines a plug-in's child wrote to stderr, as a crash's cause shows them: the last
/// four non-blank lines, at most 512 bytes of them, secrets redacted, control characters escaped.
/// Its own cost is bounded whatever the child writes.
@Suite struct StderrTailTests {
    @Test func theLastFourLinesAreKept() {
        var tail = StderrTail()
        for i in 1...10_000 { tail.append(ArraySlice("line \(i)\n\n".utf8)) }
        tail.append(ArraySlice("Fatal error: Index out of range".utf8))
        #expect(
            tail.text(redactedBy: SecretRedactor())
                == "line 9998 | line 9999 | line 10000 | Fatal error: Index out of range")
    }

    @Test func nothingButBlankLinesIsNothing() {
        var tail = StderrTail()
        #expect(tail.text(redactedBy: SecretRedactor()) == nil)
        tail.append(ArraySlice(" \n\t\r\n\n".utf8))
        #expect(tail.text(redactedBy: SecretRedactor()) == nil)
    }

    @Test func longLinesAreCutToTheirLast512Bytes() {
        var tail = StderrTail()
        tail.append(ArraySlice((String(repeating: "a", count: 100_000) + "\n").utf8))
        tail.append(ArraySlice((String(repeating: "é", count: 300) + " the end\n").utf8))
        let text = tail.text(redactedBy: SecretRedactor()) ?? ""
        #expect(text.utf8.count <= StderrTail.shownBytes)
        #expect(text.hasPrefix("…é") && text.hasSuffix("é the end"), "\(text)")
    }

    @Test func secretsAreRedactedAndControlCharactersEscaped() {
        let redactor = SecretRedactor()
        redactor.add("hunter2-very-secret")
        var tail = StderrTail()
        tail.append(ArraySlice("token hunter2-very-secret rejected\n\u{1B}[31mred\u{1B}[0m\n".utf8))
        #expect(tail.text(redactedBy: redactor) == "token [redacted] rejected | \\u{1B}[31mred\\u{1B}[0m")
    }
}

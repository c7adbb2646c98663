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

    /// A debug build's runtime prints a stack trace after its message, and the fault handler its
    /// line after that: the message is kept before the last lines, which still end the text.
    @Test func theRuntimesMessageIsKeptWhateverFollowsIt() {
        var tail = StderrTail()
        tail.append(
            ArraySlice("starting\nProbe.swift:12: Precondition failed: no targets\nCurrent stack trace:\n".utf8))
        for i in 0..<40 { tail.append(ArraySlice("\(i)    libswiftCore.so 0x00007f00 frame \(i) + 12\n".utf8)) }
        tail.append(ArraySlice("pathwatch: SIGILL (signal 4) in plug-in p during sample at /x/libp.so+0x1f2\n".utf8))
        let text = tail.text(redactedBy: SecretRedactor()) ?? ""
        #expect(text.hasPrefix("Probe.swift:12: Precondition failed: no targets | "), "\(text)")
        #expect(
            text.hasSuffix(" | pathwatch: SIGILL (signal 4) in plug-in p during sample at /x/libp.so+0x1f2"), "\(text)")
        #expect(text.utf8.count <= StderrTail.shownBytes)
    }

    /// Both cut to their room when long: the message keeps its start, the last lines their end.
    @Test func aLongMessageAndLongLastLinesShareTheRoom() {
        var tail = StderrTail()
        tail.append(ArraySlice(("Fatal error: " + String(repeating: "m", count: 2_000) + "\n").utf8))
        for _ in 0..<4 { tail.append(ArraySlice((String(repeating: "f", count: 300) + "\n").utf8)) }
        tail.append(ArraySlice("the last line\n".utf8))
        let text = tail.text(redactedBy: SecretRedactor()) ?? ""
        #expect(text.utf8.count <= StderrTail.shownBytes, "\(text.utf8.count)")
        #expect(text.hasPrefix("Fatal error: mmm") && text.contains("m… | …f"), "\(text)")
        #expect(text.hasSuffix("fff | the last line"), "\(text)")
    }

    /// Among the last lines already, the message is not said twice.
    @Test func aMessageAmongTheLastLinesIsShownOnce() {
        var tail = StderrTail()
        tail.append(ArraySlice("Fatal error: first\na\nb\nc\nd\nFatal error: second\nthe end\n".utf8))
        #expect(tail.text(redactedBy: SecretRedactor()) == "c | d | Fatal error: second | the end")
    }

    @Test func secretsAreRedactedAndControlCharactersEscaped() {
        let redactor = SecretRedactor()
        redactor.add("hunter2-very-secret")
        var tail = StderrTail()
        tail.append(ArraySlice("token hunter2-very-secret rejected\n\u{1B}[31mred\u{1B}[0m\n".utf8))
        #expect(tail.text(redactedBy: redactor) == "token [redacted] rejected | \\u{1B}[31mred\\u{1B}[0m")
    }
}

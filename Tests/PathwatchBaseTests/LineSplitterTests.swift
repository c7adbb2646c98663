import Foundation
import PathwatchTestSupport
import Testing

/// The line cutting under every test's reading of a child's output (`BackgroundProcess`,
/// `Browser`): a read ends wherever the pipe's did.
struct LineSplitterTests {
    @Test func aCharacterCutBetweenTwoReadsComesWhole() {
        var splitter = LineSplitter()
        let bytes = Array("état → ok\n".utf8)
        // Inside "é" (two bytes) and inside "→" (three).
        #expect(splitter.lines(completedBy: Data(bytes[..<1])).isEmpty)
        #expect(splitter.lines(completedBy: Data(bytes[1..<7])).isEmpty)
        #expect(splitter.lines(completedBy: Data(bytes[7...])) == ["état → ok"])
    }

    @Test func oneReadMayHoldManyLinesAndTheStartOfTheNext() {
        var splitter = LineSplitter()
        #expect(splitter.lines(completedBy: Data("a\n\nb\nc".utf8)) == ["a", "", "b"])
        #expect(splitter.lines(completedBy: Data("d".utf8)).isEmpty)
        #expect(splitter.lines(completedBy: Data("\n".utf8)) == ["cd"])
        #expect(splitter.lines(completedBy: Data()).isEmpty)
    }
}

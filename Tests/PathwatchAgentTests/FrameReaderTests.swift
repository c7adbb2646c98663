import Dispatch
import Foundation
import Glibc
import PathwatchJSON
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost

/// How a plug-in child reads the agent's calls: many frames in one read, one frame over many,
/// a large frame after small ones, and the end of the stream or a length no frame has as the end.
@Suite(.onItsOwnThread) struct FrameReaderTests {
    static func frame(_ value: JSONValue) -> [UInt8] {
        let body = Frames.body(value)
        return Frames.header(body: body)! + body
    }

    /// Writes `bytes` to `fd` in pieces of `piece` bytes, each its own send.
    static func send(_ bytes: [UInt8], to fd: Int32, piece: Int = .max) {
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + piece)
            let sent = bytes[offset..<end].withUnsafeBytes { Frames.writeAll(fd, $0) }
            #expect(sent)
            offset = end
        }
    }

    @Test func framesTogetherApartAndLargeArriveWholeAndInOrder() throws {
        let (agent, child) = try FrameOutboxTests.pair()
        defer { close(child) }
        let big = String(repeating: "x", count: 200_000)
        // Everything is written beside the reader: a frame longer than one read, and more than
        // the socket holds.
        let writer = Thread {
            // Three calls in one send, as a tick's calls go out gathered.
            Self.send((0..<3).flatMap { Self.frame(["call": "sample", "n": .number(Double($0))]) }, to: agent)
            // One call a byte at a time.
            Self.send(Self.frame(["call": "sample", "n": 3]), to: agent, piece: 1)
            Self.send(Self.frame(["call": "create", "config": .string(big)]), to: agent, piece: 4096)
            Self.send(Self.frame(["call": "sample", "n": 4]), to: agent)
            close(agent)
        }
        writer.start()
        var reader = FrameReader(fd: child)
        for n in 0..<5 {
            if n == 4 {
                let large = reader.next()
                #expect(large?["config"]?.stringValue == big, "the large frame")
            }
            let call = reader.next()
            #expect(call?["n"]?.numberValue == Double(n), "call \(n)")
        }
        #expect(reader.next() == nil, "the end of the stream")
    }

    @Test func aLengthNoFrameHasEndsTheReading() throws {
        let (agent, child) = try FrameOutboxTests.pair()
        defer {
            close(agent)
            close(child)
        }
        let tooLong = UInt32(Frames.maximumLength + 1)
        Self.send(Self.frame(["call": "sample"]) + withUnsafeBytes(of: tooLong.littleEndian) { Array($0) }, to: agent)
        var reader = FrameReader(fd: child)
        #expect(reader.next()?["call"]?.stringValue == "sample")
        #expect(reader.nextBody() == nil)
    }
}

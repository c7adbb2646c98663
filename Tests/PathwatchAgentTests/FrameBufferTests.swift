import Foundation
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost

/// The agent takes a child's frames from the bytes as they arrive: written by the child's own
/// writer (Frames, through a real socketpair), split anywhere, they come out whole and in order.
/// A child takes the agent's calls, which name no instance, the same way.
@Suite struct FrameBufferTests {
    /// What the child's writer puts on the wire for `frames`, read back from a socketpair.
    static func wire(_ frames: [(UInt32, [UInt8])]) throws -> [UInt8] {
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]) }
        // Written on a thread of its own: more than a socket's buffer holds waits for the reader.
        let writer = pair[1]
        Thread.detachNewThread {
            for (instance, body) in frames { _ = Frames.write(body: body, instance: instance, to: writer) }
            close(writer)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while case let n = read(pair[0], &chunk, chunk.count), n > 0 { bytes += chunk[0..<n] }
        return bytes
    }

    static func take(_ buffer: inout FrameBuffer) -> [FrameBuffer.Next] {
        var taken: [FrameBuffer.Next] = []
        while case let next = buffer.next(), next != .incomplete {
            taken.append(next)
            if next == .malformed { break }
        }
        return taken
    }

    @Test(arguments: [1, 3, 8, 9, 1_000, 70_000])
    func framesSplitAnywhereComeOutWholeAndInOrder(_ piece: Int) throws {
        let large = [UInt8]((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        let sent: [(UInt32, [UInt8])] = [(0, Array(#"{"loaded":true}"#.utf8)), (7, []), (2, large), (70_000, [42])]
        let bytes = try Self.wire(sent)
        var buffer = FrameBuffer()
        var taken: [FrameBuffer.Next] = []
        for start in stride(from: 0, to: bytes.count, by: piece) {
            bytes[start..<min(start + piece, bytes.count)].withUnsafeBytes { buffer.append($0) }
            taken += Self.take(&buffer)
        }
        #expect(taken == sent.map { .frame(instance: $0.0, body: $0.1) })
        #expect(buffer.pending == 0)
    }

    @Test func aFrameCutShortStaysPendingAndNothingIsMadeOfIt() throws {
        let bytes = try Self.wire([(1, Array("whole".utf8)), (1, Array(repeating: 9, count: 100))])
        var buffer = FrameBuffer()
        bytes.dropLast(40).withUnsafeBytes { buffer.append($0) }
        #expect(Self.take(&buffer) == [.frame(instance: 1, body: Array("whole".utf8))])
        #expect(buffer.pending == 8 + 60)
    }

    @Test(arguments: [[3, 0, 0, 0, 1, 0, 0, 0] as [UInt8], [0xFF, 0xFF, 0xFF, 0x7F, 1, 0, 0, 0]])
    func aLengthNoFrameCanHaveIsMalformed(_ header: [UInt8]) {
        var buffer = FrameBuffer()
        header.withUnsafeBytes { buffer.append($0) }
        #expect(buffer.next() == .malformed)
    }

    @Test func framesWithoutAnInstanceComeOutWholeAndAnEmptyOneIsAFrame() {
        let bodies: [[UInt8]] = [Array(#"{"call":"sample"}"#.utf8), [], [7]]
        var bytes: [UInt8] = []
        for body in bodies { bytes += Frames.header(body: body)! + body }
        var buffer = FrameBuffer(routed: false)
        bytes.withUnsafeBytes { buffer.append($0) }
        #expect(Self.take(&buffer) == bodies.map { .frame(instance: 0, body: $0) })
        #expect(buffer.pending == 0)
        // Routed, the same empty frame is too short to name its instance.
        var routed = FrameBuffer()
        Frames.header(body: [])!.withUnsafeBytes { routed.append($0) }
        ([0, 0, 0, 0] as [UInt8]).withUnsafeBytes { routed.append($0) }
        #expect(routed.next() == .malformed)
    }
}

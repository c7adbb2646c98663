import Glibc
import NIOCore
import NIOEmbedded
import Testing

@testable import PathwatchHTTPSink

/// A connection that reports an error the HTTP parser did not raise (a reset, a broken pipe) is
/// closed by NIO itself just after the error is fired. A close sent from the connection's handler
/// in that moment passes the TLS handler, which starts an orderly shutdown and arms a timer that
/// swift-nio-ssl does not cancel when the socket goes: it kept each such connection's handler,
/// SSL object and buffers alive for the shutdown timeout (HTTPConnectionHandler's
/// `closeUnlessClosing`). Here a recorder stands where the TLS handler stands in the sink's
/// pipeline and counts the closes that pass it.
@Suite struct ConnectionErrorCloseTests {
    final class CloseRecorder: ChannelOutboundHandler {
        typealias OutboundIn = Any
        var closes = 0
        var outputCloses = 0

        func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
            guard mode != .output else {
                // A socket shuts its sending side and stays open; an EmbeddedChannel would close.
                outputCloses += 1
                promise?.succeed(())
                return
            }
            closes += 1
            context.close(mode: mode, promise: promise)
        }
    }

    /// An open connection with the recorder in front of the sink's handler (and of the HTTP
    /// codec, with `http`).
    static func connection(
        http: Bool = false, loop: EmbeddedEventLoop = EmbeddedEventLoop(), recorder: CloseRecorder = CloseRecorder()
    ) throws -> (EmbeddedChannel, CloseRecorder) {
        let channel = EmbeddedChannel(loop: loop)
        let router = HTTPRouter(
            hub: LiveHub(loop: channel.embeddedEventLoop), authenticator: HTTPAuthenticator(token: nil, users: nil))
        try channel.pipeline.syncOperations.addHandler(recorder)
        if http {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false)
        }
        try channel.pipeline.syncOperations.addHandler(HTTPConnectionHandler(router: router))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8470)).wait()
        return (channel, recorder)
    }

    @Test func aResetIsLeftToNIOToClose() throws {
        let (channel, recorder) = try Self.connection()
        channel.pipeline.fireErrorCaught(IOError(errnoCode: ECONNRESET, reason: "read(descriptor:pointer:size:)"))
        #expect(recorder.closes == 0, "a close passed the TLS handler's place while the socket was failing")
        // What NIO does next with a socket whose read failed.
        try channel.close().wait()
        channel.embeddedEventLoop.run()
        #expect(recorder.closes == 1, "the connection was closed again after NIO closed it")
        #expect(!channel.isActive)
    }

    @Test func anErrorNIODoesNotCloseOnStillClosesTheConnection() throws {
        let (channel, recorder) = try Self.connection()
        channel.pipeline.fireErrorCaught(ChannelError.writeHostUnreachable)
        channel.embeddedEventLoop.run()
        #expect(recorder.closes == 1)
        #expect(!channel.isActive)
    }

    /// A refused request is answered, the output closed, and the connection closed after a
    /// linger; a client that hangs up first ends the linger, whose timer would otherwise hold
    /// the closed connection until it fired.
    @Test func aClientThatHangsUpEndsTheLinger() throws {
        let loop = EmbeddedEventLoop()
        let recorder = CloseRecorder()
        weak var closed: EmbeddedChannel?
        try {
            let (channel, _) = try Self.connection(http: true, loop: loop, recorder: recorder)
            try channel.writeInbound(ByteBuffer(string: "POST / HTTP/1.1\r\nHost: pathwatch\r\n\r\n"))
            let head = try #require(try channel.readOutbound(as: ByteBuffer.self))
            #expect(String(buffer: head).hasPrefix("HTTP/1.1 405"))
            #expect(recorder.outputCloses == 1, "the output was not closed after the refusal")
            // The client hangs up (NIO closes the channel on its end of file).
            try channel.close().wait()
            loop.run()
            closed = channel
        }()
        #expect(closed == nil, "the linger's timer held the closed connection")
        loop.advanceTime(by: HTTPConnectionHandler.lingerTime + .seconds(1))
        #expect(recorder.closes == 1)
    }
}

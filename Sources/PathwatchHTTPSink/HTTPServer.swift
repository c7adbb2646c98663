import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import PathwatchBase
import PathwatchHTTPSinkSettings
import Synchronization

/// The listening socket and its connections, on the sink's one event-loop thread (SwiftNIO's
/// HTTP/1.1 codec: nothing here parses HTTP). Bounds: `maxConnections` at once (the next is
/// answered 503 and closed; over TLS after the handshake), request heads of at most `maxHeaderBytes`, no request bodies,
/// `HTTPConnectionHandler.headDeadline` for a head to arrive, and a high-water mark on what a
/// connection may have waiting to be sent.
final class HTTPServer: Sendable {
    static let maxHeaderBytes = 8 * 1024
    static let maxHeaderFields = 64
    static let writeBuffer = ChannelOptions.Types.WriteBufferWaterMark(low: 64 * 1024, high: 256 * 1024)

    private let address: ListenAddress
    private let router: HTTPRouter
    private let maxConnections: Int
    /// The current TLS context, when the sink serves TLS; nil costs nothing per connection.
    private let tls: TLSContextWatcher?
    private let connections = Atomic<Int>(0)
    /// The connections open now, so that a replaced sink can retire them (`close`).
    private let open = Mutex<[ObjectIdentifier: any Channel]>([:])
    private let listener = Mutex<(any Channel)?>(nil)
    let loop: any NIOCore.EventLoop

    init(
        address: ListenAddress, router: HTTPRouter, maxConnections: Int, tls: TLSContextWatcher?,
        loop: any NIOCore.EventLoop
    ) {
        self.address = address
        self.tls = tls
        self.router = router
        self.maxConnections = maxConnections
        self.loop = loop
    }

    /// Binds and listens; the result arrives on the event loop.
    func bind(_ done: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let socketAddress: SocketAddress
        do {
            socketAddress = try SocketAddress(ipAddress: address.host, port: address.port)
        } catch {
            done(.failure(error))
            return
        }
        let bootstrap = ServerBootstrap(group: loop)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.writeBufferWaterMark, value: Self.writeBuffer)
            .childChannelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try self.initialize(channel) }
            }
        bootstrap.bind(to: socketAddress).whenComplete { result in
            switch result {
            case .success(let channel):
                self.listener.withLock { $0 = channel }
                done(.success(()))
            case .failure(let error):
                done(.failure(error))
            }
        }
    }

    private func initialize(_ channel: any Channel) throws {
        let count = connections.add(1, ordering: .relaxed).newValue
        let id = ObjectIdentifier(channel)
        open.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { _ in
            self.connections.subtract(1, ordering: .relaxed)
            self.open.withLock { _ = $0.removeValue(forKey: id) }
            // What the connection's handshake and requests left free goes back to the kernel.
            HeapTrim.connectionClosed()
        }
        guard count <= maxConnections else {
            if let tls {
                // A TLS client would read plain text as a broken record (WRONG_VERSION_NUMBER):
                // over TLS the handshake is made and each request answered 503 and closed.
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.context))
                return try configureHTTP(channel, HTTPConnectionHandler(router: router, refusingAll: Self.busy))
            }
            // Over the bound: say so in one write, without parsing anything, and hang up.
            let busy =
                "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            // Stop writing, let what the client sends drain for a moment, then close: closing
            // with unread input would reset the connection and could lose the 503.
            channel.writeAndFlush(ByteBuffer(string: busy)).whenComplete { _ in
                channel.close(mode: .output, promise: nil)
                HTTPConnectionHandler.closeAfterLinger(channel)
            }
            return
        }
        // TLS first: what the HTTP codec reads is what the handshake decrypted. The context is
        // the watcher's current one, so a renewed certificate serves from the next connection on.
        if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.context)) }
        try configureHTTP(channel, HTTPConnectionHandler(router: router))
    }

    /// The HTTP/1.1 codec with the sink's limits, then `handler`.
    private func configureHTTP(_ channel: any Channel, _ handler: HTTPConnectionHandler) throws {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = Self.maxHeaderBytes
        limits.maxHeaderListSize = Self.maxHeaderBytes
        limits.maxHeaderFieldCount = Self.maxHeaderFields
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withPipeliningAssistance: false, withErrorHandling: false,
            withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
        try channel.pipeline.syncOperations.addHandler(handler)
    }

    /// What a connection over `maxConnections` is told on a TLS listener.
    static let busy = HTTPReply.plain(
        .serviceUnavailable, "too many connections; try again\n", extra: [("Retry-After", "1")])

    /// The port bound (the configured one, or the kernel's pick for port 0 in tests).
    var boundPort: Int? { listener.withLock { $0?.localAddress?.port } }

    /// Stops listening, then retires every open connection: one between requests or streaming
    /// `/events` is closed at once, one mid-request once its response is written (with
    /// `Connection: close`). A replaced sink's connections would otherwise go on being served its
    /// last document for as long as they are kept alive, while the agent's moves on: clients
    /// reconnect to the successor instead, and a browser's stream resumes there from the ring it
    /// was handed. Returns when the listening socket is closed, so a successor can bind the same
    /// address at once.
    func close() -> EventLoopFuture<Void> {
        let listening = listener.withLock { $0 }
        let closed = listening?.close() ?? loop.makeSucceededVoidFuture()
        return closed.always { _ in
            for connection in self.open.withLock({ Array($0.values) }) {
                connection.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
            }
        }
    }
}

import NIOCore
import NIOHTTP1

/// One connection to the http sink: a request head must arrive within `headDeadline` of the
/// connection opening or of the previous response (a slow-loris client is cut off, an idle
/// keep-alive connection closed); requests carry no body (413); oversized heads are refused by
/// the decoder's limits (431); everything but `/healthz` needs a login (token or user) when one
/// is configured (`HTTPAuthenticator`).
final class HTTPConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let headDeadline = TimeAmount.seconds(10)

    /// An `/events` response's head; a proxy in front must not buffer the stream.
    static var streamHeaders: HTTPHeaders {
        var headers = HTTPReply.commonHeaders
        headers.add(name: "Content-Type", value: "text/event-stream; charset=utf-8")
        headers.add(name: "X-Accel-Buffering", value: "no")
        return headers
    }

    private let router: HTTPRouter
    /// The client's address, which failed logins are counted against.
    private var client = ""
    /// A login being checked off the event loop: a request pipelined behind it closes the
    /// connection (no client of the agent pipelines).
    private var verifying = false
    private var request: HTTPRequestHead?
    private var deadline: Scheduled<Void>?
    /// When a login being verified is answered 503 if bcrypt has not answered yet.
    private var verifyTimer: Scheduled<Void>?
    /// Once the response is a stream (`/events`) or the connection is being closed, nothing
    /// more is read as requests.
    private var finished = false

    /// The one answer to every request, on a connection over the sink's bound (TLS listeners).
    private let refusal: HTTPReply?
    /// The sink was replaced (a reload changed its entry): the response being made is the last.
    private var retiring = false

    init(router: HTTPRouter, refusingAll refusal: HTTPReply? = nil) {
        self.router = router
        self.refusal = refusal
    }

    func channelActive(context: ChannelHandlerContext) {
        client = context.channel.remoteAddress?.ipAddress ?? ""
        armDeadline(context)
        context.fireChannelActive()
    }

    /// The server retires its connections (HTTPServer.close): between requests, or streaming,
    /// the connection closes now; mid-request, after its response.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else { return context.fireUserInboundEventTriggered(event) }
        retiring = true
        if finished || (request == nil && !verifying) {
            finished = true
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        verifyTimer?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !finished else { return }
        guard !verifying else {
            finished = true
            context.close(promise: nil)
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            deadline?.cancel()
            request = head
            if let refusal {
                respond(context, refusal, close: true, headOnly: head.method == .HEAD)
            } else if head.method != .GET && head.method != .HEAD {
                respond(
                    context, HTTPReply.plain(.methodNotAllowed, "only GET and HEAD\n", extra: [("Allow", "GET, HEAD")]),
                    close: true)
            } else if Self.hasBody(head) {
                respond(context, HTTPReply.plain(.payloadTooLarge, "requests take no body\n"), close: true)
            }
        case .body:
            break
        case .end:
            guard let head = request else { return }
            request = nil
            authorize(head, context: context)
        }
    }

    /// Serves the request when its login allows (at once, or once bcrypt has answered on the
    /// verifier's threads: the answer comes back to this event loop).
    private func authorize(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard HTTPRouter.needsLogin(head) else { return serve(head, context: context) }
        switch router.authenticator.decide(head.headers, client: client) {
        case .allowed:
            serve(head, context: context)
        case .refused(let reply):
            respond(context, reply, close: !head.isKeepAlive, headOnly: head.method == .HEAD)
        case .verify(let user, let password):
            verifying = true
            deadline?.cancel()
            let loop = context.eventLoop
            let bound = NIOLoopBound((self, context), eventLoop: loop)
            // The answer comes by the verifier's deadline, verified or not: a hash that takes
            // too long, or a queue of them, never leaves the client waiting without end.
            let due = NIODeadline.now() + CredentialVerifier.deadline
            verifyTimer = loop.scheduleTask(deadline: due) {
                let (me, context) = bound.value
                guard me.verifying else { return }
                me.verifying = false
                me.respond(context, HTTPAuthenticator.late, close: true)
            }
            let started = router.authenticator.verify(
                user: user, password: password, client: client, deadline: due
            ) { refusal in
                loop.execute {
                    let (me, context) = bound.value
                    me.verifyTimer?.cancel()
                    // Answered already, when the deadline came first.
                    guard me.verifying else { return }
                    me.verifying = false
                    guard context.channel.isActive else { return }
                    if let refusal {
                        me.respond(context, refusal, close: !head.isKeepAlive, headOnly: head.method == .HEAD)
                    } else {
                        me.serve(head, context: context)
                    }
                }
            }
            if !started {
                verifyTimer?.cancel()
                verifying = false
                respond(context, HTTPAuthenticator.busy, close: true)
            }
        }
    }

    private func serve(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        switch router.route(head) {
        case .reply(let reply):
            // A delivery is the agent's status handed over: not a refusal, not the liveness
            // answer of /healthz (a load balancer asking it says nothing of the readers), not a HEAD.
            let delivers =
                head.method == .GET && (200..<300).contains(reply.status.code)
                && HTTPRouter.path(of: head.uri) != "/healthz"
            respond(context, reply, close: !head.isKeepAlive, headOnly: head.method == .HEAD, delivers: delivers)
        case .stream where head.method == .HEAD:
            // What a stream would begin with, and nothing more: no subscription for a HEAD.
            respond(
                context, HTTPReply(status: .ok, headers: Self.streamHeaders, body: ByteBuffer()),
                close: !head.isKeepAlive, headOnly: true)
        case .stream(let lastEventID):
            finished = true
            context.writeAndFlush(
                wrapOutboundOut(
                    .head(HTTPResponseHead(version: head.version, status: .ok, headers: Self.streamHeaders))),
                promise: nil)
            // Its frames, from the opening on, are each a delivery when written.
            router.hub.subscribe(context.channel, lastEventID: lastEventID)
        }
    }

    private func respond(
        _ context: ChannelHandlerContext, _ reply: HTTPReply, close: Bool, headOnly: Bool = false,
        delivers: Bool = false
    ) {
        var headers = reply.headers
        headers.add(name: "Content-Length", value: String(reply.body.readableBytes))
        let close = close || retiring
        if close {
            finished = true
            headers.add(name: "Connection", value: "close")
        }
        let version = request?.version ?? .http1_1
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: version, status: reply.status, headers: headers))),
            promise: nil)
        if !headOnly { context.write(wrapOutboundOut(.body(.byteBuffer(reply.body))), promise: nil) }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if delivers {
            let hub = router.hub
            done.whenSuccess { hub.noteDelivery() }
        }
        if close {
            lingeringClose(context, after: done)
        } else {
            armDeadline(context)
        }
    }

    /// Closes without losing the reply: a client may still be sending what we refused (a body,
    /// an oversized head), and closing a socket with unread input makes the kernel answer with
    /// a reset that can overtake the reply. So: stop writing, read and discard for a moment
    /// (until the client closes, at most `lingerTime`), then close.
    private func lingeringClose(_ context: ChannelHandlerContext, after done: EventLoopFuture<Void>) {
        finished = true
        let channel = context.channel
        done.whenComplete { _ in
            channel.close(mode: .output, promise: nil)
            Self.closeAfterLinger(channel)
        }
    }

    static let lingerTime = TimeAmount.seconds(2)

    /// Closes `channel` once `lingerTime` has passed, unless the client closed it first: the
    /// timer is cancelled then, since until it fired it held the closed channel and its pipeline
    /// (two seconds of every refused request in a flood of them).
    static func closeAfterLinger(_ channel: any Channel) {
        let linger = channel.eventLoop.scheduleTask(in: lingerTime) { channel.close(promise: nil) }
        channel.closeFuture.whenComplete { _ in linger.cancel() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // After a reply that ends the connection, what still arrives is discarded, errors too.
        guard !finished else { return }
        // Decoder errors: the head was too large (431) or not HTTP (400). Either way, close.
        if let parse = error as? HTTPParserError {
            let reply =
                parse == .headerOverflow
                ? HTTPReply.plain(
                    .init(statusCode: 431, reasonPhrase: "Request Header Fields Too Large"),
                    "request header fields too large (limit \(HTTPServer.maxHeaderBytes) bytes)\n")
                : HTTPReply.plain(.badRequest, "malformed request\n")
            respond(context, reply, close: true)
        } else {
            closeUnlessClosing(context)
        }
    }

    /// Closes after an error the parser did not raise, unless the channel is closing already.
    ///
    /// Why not at once: a reset or a broken pipe reaches here just before NIO closes the socket
    /// itself. A close from here would pass through the TLS handler while it still counts the
    /// connection open, so it starts an orderly shutdown and arms its `shutdownTimeout` timer,
    /// which swift-nio-ssl does not cancel when the socket goes: the timer kept the handler, its
    /// SSL object and its 48 KiB of buffers alive after the socket closed. In a flood of
    /// handshakes that hang up at once, some 300 connections at a time (57 KiB each), and the
    /// heap that peak left behind was torn into free runs that live blocks held resident. So the
    /// close waits for the event loop's next turn, by which NIO has closed a broken socket, and
    /// closes only a channel still open.
    private func closeUnlessClosing(_ context: ChannelHandlerContext) {
        let channel = context.channel
        context.eventLoop.execute { if channel.isActive { channel.close(promise: nil) } }
    }

    private func armDeadline(_ context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: Self.headDeadline) { channel.close(promise: nil) }
    }

    private static func hasBody(_ head: HTTPRequestHead) -> Bool {
        if head.headers.contains(name: "Transfer-Encoding") { return true }
        return head.headers["Content-Length"].contains { (Int($0.filter { $0 != " " && $0 != "\t" }) ?? 1) != 0 }
    }
}

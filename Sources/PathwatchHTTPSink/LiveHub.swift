import NIOCore
import NIOHTTP1
import PathwatchHTTPSinkSettings
import PathwatchJSON
import PathwatchSinkKit
import Synchronization

/// What the http sink serves, kept current by the agent's reports: the latest status document
/// (serialised and rendered as metrics at most once per report, when first asked), the change
/// events' replay ring, the plots' history, and the `/events` subscribers.
///
/// The agent only ever takes the lock for a moment and hands writes to the server's event loop:
/// a slow or stuck client never delays a probe or another sink. A subscriber whose unsent data
/// passes the channel's high-water mark is disconnected (its browser reconnects with
/// `Last-Event-ID` and misses nothing the ring still holds). A stream's socket has a fixed send
/// buffer, `streamSendBuffer`: left to the kernel's autotuning it grows to `tcp_wmem`'s maximum
/// (4 MiB on Debian), which a client that never reads fills before the channel turns
/// unwritable, so the agent would notice late, or never, and the kernel holds megabytes for it.
final class LiveHub: Sendable {
    static let ringCapacity = 1024
    /// `status` events after reports: at most one a second per stream.
    static let statusPushSpacing = TimeAmount.seconds(1)
    static let keepAliveSpacing = TimeAmount.seconds(15)
    /// What `SO_SNDBUF` asks for on a stream; the kernel doubles it for its bookkeeping. Change
    /// events are small and few, so this is ample for a reader across a slow link.
    static let streamSendBuffer = 64 * 1024

    private struct Subscriber {
        var channel: any Channel
        /// Ring frames up to this one were sent in its opening (replay); skip them live.
        var sentThrough: UInt64
    }

    private struct State {
        var snapshot: StatusSnapshot?
        var version: UInt64 = 0
        var documentText: (version: UInt64, text: String)?
        var metricsBody: (version: UInt64, body: ByteBuffer)?
        /// The last `/metrics` rendering, whose buffers the next one writes again and whose
        /// checks' texts it copies where they still hold.
        var metricsRendering: PrometheusExposition.Rendering?
        var ring = EventRing(capacity: LiveHub.ringCapacity)
        var history = MetricHistory()
        var subscribers: [ObjectIdentifier: Subscriber] = [:]
        var statusPushScheduled = false
        var lastStatusPush = NIODeadline.uptimeNanoseconds(0)
        var keepAlive: RepeatedTask?
        var disconnected = 0
        var lastDelivery: WallTime?
    }

    private let state = Mutex(State())
    let loop: any NIOCore.EventLoop

    init(loop: any NIOCore.EventLoop) { self.loop = loop }

    // MARK: From the agent

    func accept(_ batch: SinkBatch) {
        let (frames, push) = state.withLock { s -> ([(UInt64, ByteBuffer)], Bool) in
            s.snapshot = batch.snapshot
            s.version += 1
            s.history.record(batch.snapshot)
            var frames: [(UInt64, ByteBuffer)] = []
            for event in batch.events {
                let frame = "id: \(event.id)\nevent: change\ndata: \(event.jsonText)\n\n"
                s.ring.append(id: event.id, frame: frame)
                frames.append((s.ring.lastSequence, ByteBuffer(string: frame)))
            }
            let push = !s.subscribers.isEmpty && !s.statusPushScheduled
            if push { s.statusPushScheduled = true }
            return (frames, push)
        }
        if !frames.isEmpty { loop.execute { self.broadcast(frames) } }
        if push { scheduleStatusPush() }
    }

    /// The document serialised, once per report however often it is asked for.
    func documentText() -> String? {
        guard state.withLock({ $0.snapshot != nil }) else { return nil }
        return rendered(\.documentText) { $0?.jsonText() ?? "null" }
    }

    /// `/metrics`: rendered once per report, so a scrape storm costs no render, and no copy
    /// either: every response shares the one buffer. Written straight from the families'
    /// samples into the buffer sent, never held as a String (whose UTF-8 check of hundreds of
    /// kilobytes took a fifth of a rendering), into the family buffers of the rendering before,
    /// copying what it wrote for each check that says the same.
    func metricsBody() -> ByteBuffer {
        let (snapshot, version, current, stale, earlier) = state.withLock {
            s -> (StatusSnapshot?, UInt64, ByteBuffer?, ByteBuffer?, PrometheusExposition.Rendering?) in
            guard let cached = s.metricsBody else {
                return (s.snapshot, s.version, nil, nil, s.metricsRendering.take())
            }
            if cached.version == s.version { return (nil, s.version, cached.body, nil, nil) }
            // A stale rendering's buffer is written again (when no response still holds it):
            // its pages are already the process's, where a new one of hundreds of kilobytes is
            // mapped afresh and faulted in page by page. Its text's buffers likewise.
            s.metricsBody = nil
            return (s.snapshot, s.version, nil, cached.body, s.metricsRendering.take())
        }
        if let current { return current }
        // Two scrapes rendering at once: one takes the rendering before, the other starts
        // afresh. Taken out, so its buffers have one owner and are written in place.
        var rendering = (consume earlier) ?? PrometheusExposition.Rendering()
        PrometheusExposition.renderText(snapshot, into: &rendering)
        var body = (consume stale) ?? ByteBufferAllocator().buffer(capacity: 0)
        body.clear(minimumCapacity: rendering.text.byteCountEstimate)
        rendering.text.write { body.writeBytes($0) }
        state.withLock {
            $0.metricsRendering = rendering
            if $0.version == version { $0.metricsBody = (version, body) }
        }
        return body
    }

    /// The latest snapshot rendered by `render`, kept in `slot` until the next report. Rendered
    /// outside the hub's lock, so a report (`accept`) never waits for a render; the snapshot
    /// already holds every sink's status (the agent took it), so rendering asks no one.
    private func rendered(
        _ slot: WritableKeyPath<State, (version: UInt64, text: String)?>, _ render: (StatusSnapshot?) -> String
    ) -> String {
        let (snapshot, version, cached) = state.withLock { ($0.snapshot, $0.version, $0[keyPath: slot]) }
        if let cached, cached.version == version { return cached.text }
        let text = render(snapshot)
        state.withLock { if $0.version == version { $0[keyPath: slot] = (version, text) } }
        return text
    }

    /// A client got what it asked for: a page, a document, the metrics, or a stream's frame.
    func noteDelivery() { state.withLock { $0.lastDelivery = .now() } }

    var counters: (disconnected: Int, lastDelivery: WallTime?) {
        state.withLock { ($0.disconnected, $0.lastDelivery) }
    }

    // MARK: Streams (called on the event loop)

    /// Opens an `/events` stream on `channel`, whose response head is already written: the
    /// document as `status`, the plots' `history`, then what the client missed since
    /// `lastEventID`, and from then on every change as it happens.
    func subscribe(_ channel: any Channel, lastEventID: String?) {
        loop.preconditionInEventLoop()
        // Best effort: a socket that refuses it keeps autotuning, and the high-water mark
        // still bounds what the agent itself holds.
        try? channel.syncOptions?.setOption(
            ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(Self.streamSendBuffer))
        let current = documentText()
        let opening = state.withLock { s -> String in
            var text = "retry: 2000\n\n"
            if let current { text += "event: status\ndata: \(current)\n\n" }
            text += "event: history\ndata: \(JSONSerializer.serialize(s.history.json))\n\n"
            if let lastEventID, let missed = s.ring.after(id: lastEventID) {
                text += missed.map(\.frame).joined()
            }
            s.subscribers[ObjectIdentifier(channel)] = Subscriber(channel: channel, sentThrough: s.ring.lastSequence)
            if s.keepAlive == nil {
                s.keepAlive = loop.scheduleRepeatedTask(
                    initialDelay: Self.keepAliveSpacing, delay: Self.keepAliveSpacing
                ) { _ in
                    self.sendKeepAlive()
                }
            }
            return text
        }
        write(ByteBuffer(string: opening), to: channel)
        let id = ObjectIdentifier(channel)
        channel.closeFuture.whenComplete { _ in self.unsubscribe(id) }
    }

    private func unsubscribe(_ id: ObjectIdentifier) {
        let task = state.withLock { s -> RepeatedTask? in
            s.subscribers[id] = nil
            guard s.subscribers.isEmpty, let task = s.keepAlive else { return nil }
            s.keepAlive = nil
            return task
        }
        task?.cancel()
    }

    private func broadcast(_ frames: [(sequence: UInt64, buffer: ByteBuffer)]) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers {
            for frame in frames where frame.sequence > subscriber.sentThrough {
                guard write(frame.buffer, to: subscriber.channel) else { break }
            }
        }
    }

    private func scheduleStatusPush() {
        loop.execute {
            let due = self.state.withLock { $0.lastStatusPush + Self.statusPushSpacing }
            let delay = due - .now()
            if delay > .zero {
                self.loop.scheduleTask(in: delay) { self.pushStatus() }
            } else {
                self.pushStatus()
            }
        }
    }

    private func pushStatus() {
        let (subscribers, snapshot) = state.withLock { s -> ([Subscriber], StatusSnapshot?) in
            s.statusPushScheduled = false
            s.lastStatusPush = .now()
            return (Array(s.subscribers.values), s.snapshot)
        }
        guard !subscribers.isEmpty, let text = documentText() else { return }
        var frames = "event: status\ndata: \(text)\n\n"
        // The plots' newest values, sorted into plots here: the page draws what the agent says
        // each metric is, and never reads a metric's kind from its name.
        if let snapshot, let plotted = MetricHistory.sample(of: snapshot) {
            frames += "event: plot\ndata: \(JSONSerializer.serialize(plotted.json))\n\n"
        }
        let buffer = ByteBuffer(string: frames)
        for subscriber in subscribers { write(buffer, to: subscriber.channel) }
    }

    private func sendKeepAlive() {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        let buffer = ByteBuffer(string: ": keep-alive\n\n")
        for subscriber in subscribers { write(buffer, to: subscriber.channel, delivers: false) }
    }

    /// A client that does not read cannot make the agent hold its data without bound: it is
    /// removed from the streams and disconnected, counted once. False when it was dropped.
    /// A frame written whole is a delivery (`delivers`: every frame but a keep-alive comment).
    @discardableResult
    private func write(_ buffer: ByteBuffer, to channel: any Channel, delivers: Bool = true) -> Bool {
        guard channel.isWritable else {
            let wasStreaming = state.withLock { s -> Bool in
                guard s.subscribers.removeValue(forKey: ObjectIdentifier(channel)) != nil else { return false }
                s.disconnected += 1
                return true
            }
            if wasStreaming { channel.close(promise: nil) }
            return false
        }
        let written = channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer)))
        if delivers { written.whenSuccess { self.noteDelivery() } }
        return true
    }

    /// Hands the ring and the history to a successor serving the same address (a reload), so
    /// reconnecting browsers replay across it.
    func handOver(to successor: LiveHub) {
        let (ring, history, snapshot) = state.withLock { ($0.ring, $0.history, $0.snapshot) }
        successor.state.withLock { s in
            if s.ring.lastSequence == 0 { s.ring = ring }
            if s.history.samples.isEmpty { s.history = history }
            // The last report, until the new configuration's first: a sink replaced by a reload
            // (its token changed, say) never answers 503 or an empty /metrics meanwhile.
            if s.snapshot == nil, let snapshot {
                s.snapshot = snapshot
                s.version += 1
            }
        }
    }
}

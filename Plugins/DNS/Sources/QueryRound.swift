import CAres
import PathwatchJSON
import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What became of one query.
enum QueryOutcome {
    case response(DNSResponse, latencyMilliseconds: Double)
    /// An answer that could not be read (by c-ares, over TCP: one that answered no query).
    case malformed(latencyMilliseconds: Double, overTCP: Bool)
    /// No answer: timeout, refused, unreachable.
    case noAnswer(String)
    /// Never sent, for the agent's own lack of a resource (memory, file descriptors).
    case notSent(String)
}

/// One sample's queries: every resolver asked at once, up to `window` queries in flight each, and
/// all the answers read on one poll loop over c-ares's sockets, on the calling thread (the host's
/// thread for this probe).
/// Each resolver has a c-ares channel of its own, so each answer is known to come from the
/// resolver it is reported for (a channel with several servers would quietly ask the next one).
enum QueryRound {
    struct Settings {
        /// The whole round's wait, retries included.
        var timeout: ConfigDuration
        var tries: Int
        var tcp: TCPMode
    }

    /// c-ares's process-wide set-up, done once (it is a no-op on Linux, but the API asks for it).
    private static let libraryStatus: Int32 = ares_library_init(ARES_LIB_INIT_ALL)

    /// The outcomes, by resolver then by query.
    static func run(resolvers: [ResolverAddress], queries: [DNSQuery], settings: Settings) -> [[QueryOutcome]] {
        let round = Round(timeout: settings.timeout)
        var outcomes = [[QueryOutcome?]](
            repeating: [QueryOutcome?](repeating: nil, count: queries.count), count: resolvers.count)
        guard libraryStatus == ARES_SUCCESS else {
            let why = QueryOutcome.notSent("c-ares: \(String(cString: ares_strerror(libraryStatus)))")
            return resolvers.map { _ in queries.map { _ in why } }
        }
        var channels: [Channel] = []
        var pending: [PendingQuery] = []
        for (r, resolver) in resolvers.enumerated() {
            let channel: OpaquePointer
            let watch = TCPWatch()
            switch Self.channel(for: resolver, settings: settings, watch: watch) {
            case .success(let made): channel = made
            case .failure(let why):
                for q in queries.indices { outcomes[r][q] = .notSent(why.text) }
                continue
            }
            let index = channels.count
            let waiting = queries.indices.map {
                PendingQuery(resolver: r, query: $0, channel: index, asked: queries[$0], round: round)
            }
            pending += waiting
            channels.append(Channel(handle: channel, queued: waiting.reversed()))
            round.watches.append(watch)
        }
        round.inFlight = Array(repeating: 0, count: channels.count)
        // The watches outlive their channels: ares_destroy closes its sockets through them.
        withExtendedLifetime((pending, round.watches)) {
            loop(channels, queries, round)
            // Whatever is still unanswered gets ARES_ECANCELLED: no answer within the timeout.
            for channel in channels {
                ares_cancel(channel.handle)
                ares_destroy(channel.handle)
            }
        }
        for waiting in pending { outcomes[waiting.resolver][waiting.query] = waiting.outcome }
        return outcomes.map { $0.map { $0 ?? .noAnswer("no answer within \(settings.timeout)") } }
    }

    struct ChannelError: Error { var text: String }

    /// At most this many queries wait for answers from one resolver at once; the rest are sent
    /// as answers come. A burst of a thousand overflows the sockets' receive buffers on both
    /// sides (a resolver's and ours: 208 KiB by default, some 270 datagrams), and what is
    /// dropped is lost until a retry: half of 1,000 names against a local dnsmasq.
    static let window = 100

    /// A resolver's c-ares channel and its queries not sent yet (the next one last).
    final class Channel {
        let handle: OpaquePointer
        var queued: [PendingQuery]

        init(handle: OpaquePointer, queued: [PendingQuery]) {
            self.handle = handle
            self.queued = queued
        }
    }

    /// Sends queued queries while the channel has room in its window.
    private static func topUp(_ channel: Channel, index: Int, _ queries: [DNSQuery], _ round: Round) {
        while round.inFlight[index] < window, let next = channel.queued.popLast() {
            round.inFlight[index] += 1
            if let why = send(queries[next.query], on: channel.handle, next) {
                round.inFlight[index] -= 1
                next.fail(.notSent(why))
            }
        }
    }

    private static func channel(for resolver: ResolverAddress, settings: Settings, watch: TCPWatch) -> Result<
        OpaquePointer, ChannelError
    > {
        var options = ares_options()
        // NOCHECKRESP: a SERVFAIL or REFUSED is handed back as it came, not retried elsewhere
        // and turned into a bare error code: the probe reports the resolver's own answer.
        var flags = ARES_FLAG_NOCHECKRESP | ARES_FLAG_NOSEARCH | ARES_FLAG_NOALIASES
        switch settings.tcp {
        case .fallback: break
        case .never: flags |= ARES_FLAG_IGNTC
        case .always: flags |= ARES_FLAG_USEVC
        }
        options.flags = flags
        // c-ares doubles the wait at each try: T, 2T, 4T… The tries together fill the timeout.
        let share = (1 << settings.tries) - 1
        options.timeout = Int32(max(1, settings.timeout.nanoseconds / 1_000_000 / Int64(share)))
        options.tries = Int32(settings.tries)
        var channel: OpaquePointer?
        let status = ares_init_options(&channel, &options, ARES_OPT_FLAGS | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES)
        guard status == ARES_SUCCESS, let channel else {
            return .failure(ChannelError(text: "c-ares: \(String(cString: ares_strerror(status)))"))
        }
        watch.install(on: channel)
        let set = ares_set_servers_ports_csv(channel, resolver.aresServer)
        guard set == ARES_SUCCESS else {
            ares_destroy(channel)
            return .failure(ChannelError(text: "c-ares: \(String(cString: ares_strerror(set)))"))
        }
        return .success(channel)
    }

    /// Sends one query; the reason when it could not be sent.
    private static func send(_ query: DNSQuery, on channel: OpaquePointer, _ waiting: PendingQuery) -> String? {
        var buffer: UnsafeMutablePointer<UInt8>?
        var length: Int32 = 0
        // Recursion desired, no EDNS: what a stub resolver's plain query looks like.
        let made = ares_create_query(query.queryName, 1, Int32(query.type.code), 0, 1, &buffer, &length, 0)
        guard made == ARES_SUCCESS, let buffer else {
            return "cannot ask \(query.queryName): \(String(cString: ares_strerror(made)))"
        }
        defer { ares_free_string(buffer) }
        waiting.sentAt = MonotonicClock.nowNanoseconds()
        ares_send(
            channel, buffer, length,
            { argument, status, _, answer, length in
                guard let argument else { return }
                Unmanaged<PendingQuery>.fromOpaque(argument).takeUnretainedValue()
                    .finish(status: status, answer: answer.map { UnsafeBufferPointer(start: $0, count: Int(length)) })
            }, Unmanaged.passUnretained(waiting).toOpaque())
        return nil
    }

    /// Polls every channel's sockets until every query is answered or the round's time is up.
    private static func loop(_ channels: [Channel], _ queries: [DNSQuery], _ round: Round) {
        let end = MonotonicClock.nowNanoseconds() + round.timeout.nanoseconds
        let maximum = Int(ARES_GETSOCK_MAXNUM)
        var sockets = [ares_socket_t](repeating: ARES_SOCKET_BAD, count: maximum)
        var fds: [pollfd] = []
        var owners: [OpaquePointer] = []
        while round.unanswered > 0 {
            for (index, channel) in channels.enumerated() { topUp(channel, index: index, queries, round) }
            var wait = end - MonotonicClock.nowNanoseconds()
            if wait <= 0 { return }
            fds.removeAll(keepingCapacity: true)
            owners.removeAll(keepingCapacity: true)
            for channel in channels.map(\.handle) {
                let bits = ares_getsock(channel, &sockets, Int32(maximum))
                for index in 0..<maximum {
                    let read = pw_ares_sock_readable(bits, Int32(index)) != 0
                    let write = pw_ares_sock_writable(bits, Int32(index)) != 0
                    guard read || write else { continue }
                    fds.append(
                        pollfd(
                            fd: sockets[index], events: Int16((read ? POLLIN : 0) | (write ? POLLOUT : 0)), revents: 0))
                    owners.append(channel)
                }
                var room = timeval()
                if let next = ares_timeout(channel, nil, &room) {
                    wait = min(wait, Int64(next.pointee.tv_sec) * 1_000_000_000 + Int64(next.pointee.tv_usec) * 1_000)
                }
            }
            // Rounded up: a wait cut to 0 ms would spin until the retry is due.
            let milliseconds = Int32(min(Int64(Int32.max), (wait + 999_999) / 1_000_000))
            let ready = poll(&fds, nfds_t(fds.count), milliseconds)
            if ready < 0 && errno != EINTR { return }
            if ready > 0 {
                for (index, fd) in fds.enumerated() where fd.revents != 0 {
                    let readable = fd.revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 ? fd.fd : ARES_SOCKET_BAD
                    let writable = fd.revents & Int16(POLLOUT) != 0 ? fd.fd : ARES_SOCKET_BAD
                    ares_process_fd(owners[index], readable, writable)
                }
            }
            // Retries and timeouts that fell due.
            for channel in channels { ares_process_fd(channel.handle, ARES_SOCKET_BAD, ARES_SOCKET_BAD) }
        }
    }
}

/// The round's shared count of queries still waiting.
final class Round {
    let timeout: ConfigDuration
    var unanswered = 0
    /// Queries sent and not yet answered, by channel.
    var inFlight: [Int] = []
    /// What each channel's TCP connections did.
    var watches: [TCPWatch] = []

    init(timeout: ConfigDuration) { self.timeout = timeout }
}

/// One query in flight; c-ares's callback argument.
final class PendingQuery {
    let resolver: Int
    let query: Int
    let channel: Int
    let type: RecordType
    /// "name/TYPE-code", as TCPWatch reads it from the query on the wire.
    let question: String
    let round: Round
    var sentAt: Int64 = 0
    var outcome: QueryOutcome?

    init(resolver: Int, query: Int, channel: Int, asked: DNSQuery, round: Round) {
        self.resolver = resolver
        self.query = query
        self.channel = channel
        type = asked.type
        question = "\(AnswerText.name(asked.queryName))/\(asked.type.code)"
        self.round = round
        round.unanswered += 1
    }

    /// Ends a query that was never sent, or never will be.
    func fail(_ why: QueryOutcome) {
        guard outcome == nil else { return }
        round.unanswered -= 1
        outcome = why
    }

    func finish(status: Int32, answer: UnsafeBufferPointer<UInt8>?) {
        guard outcome == nil else { return }
        round.unanswered -= 1
        round.inFlight[channel] -= 1
        let latency = Double(MonotonicClock.nowNanoseconds() - sentAt) / 1e6
        // A query that went over TCP and ended without an answer: what the connection did.
        if status != ARES_SUCCESS, status != ARES_ENOMEM,
            let trouble = round.watches[channel].trouble(of: question, status: status)
        {
            switch trouble {
            case .malformed: outcome = .malformed(latencyMilliseconds: latency, overTCP: true)
            case .closedByServer: outcome = .noAnswer("the server closed the TCP connection without answering")
            case .refused: outcome = .noAnswer("TCP connection refused")
            }
            return
        }
        switch status {
        case ARES_SUCCESS:
            if let answer, let response = try? DNSResponse(answer, asked: type) {
                outcome = .response(response, latencyMilliseconds: latency)
            } else {
                outcome = .malformed(latencyMilliseconds: latency, overTCP: false)
            }
        case ARES_ETIMEOUT, ARES_ECANCELLED, ARES_EDESTRUCTION:
            outcome = .noAnswer("no answer within \(round.timeout)")
        case ARES_ECONNREFUSED:
            outcome = .noAnswer("connection refused")
        case ARES_ENOMEM:
            outcome = .notSent("c-ares: out of memory")
        default:
            outcome = .noAnswer(String(cString: ares_strerror(status)).lowercased())
        }
    }
}

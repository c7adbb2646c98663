import CAres

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What one resolver's TCP connections did, seen through c-ares's socket functions: c-ares ends
/// a query whose TCP connection broke with the status it started with (ARES_ECONNREFUSED) or
/// with ARES_ETIMEOUT, whatever the server sent. A query that went over TCP (after a truncated
/// UDP answer, or always) is told what really happened: a message that answered no query (too
/// short for a header, not a response, an id never asked, or cut off by the close), the server
/// closing the connection without answering, or the connection refused (a query whose TCP
/// connection was refused never went over TCP: any query of the resolver refused while only TCP
/// was refused is told so).
///
/// The functions do what c-ares does without them (it then leaves the sockets' set-up to us:
/// non-blocking, close-on-exec, no Nagle delay) and only watch the bytes go by. They run on the
/// round's thread, inside c-ares's calls; `errno` is kept as the system call left it.
final class TCPWatch {
    /// What went wrong on the TCP connections, from the first thing that did.
    enum Trouble: Equatable {
        case malformed
        case closedByServer
        case refused
    }

    /// What went wrong on a connection that carried queries: not answering them.
    private var trouble: Trouble?
    private var refusedOverTCP = false
    private var refusedOverUDP = false
    /// The questions ("name/TYPE-code") sent over TCP.
    private(set) var askedOverTCP: Set<String> = []
    private var streams: [ares_socket_t: Stream] = [:]
    let functions: UnsafeMutablePointer<ares_socket_functions>

    /// One TCP connection's bytes, each way, cut into the length-prefixed messages of RFC 1035 §4.2.2.
    private struct Stream {
        var sent = TCPFramer()
        var received = TCPFramer()
        var sentIDs: Set<UInt16> = []
    }

    init() {
        functions = .allocate(capacity: 1)
        functions.initialize(
            to: ares_socket_functions(
                asocket: { family, type, proto, watch in TCPWatch.from(watch).open(family, type, proto) },
                aclose: { socket, watch in TCPWatch.from(watch).closeSocket(socket) },
                aconnect: { socket, address, length, watch in
                    TCPWatch.from(watch).connectSocket(socket, address, length)
                },
                arecvfrom: { socket, buffer, length, flags, from, fromLength, watch in
                    TCPWatch.from(watch).receive(socket, buffer, length, flags, from, fromLength)
                },
                asendv: { socket, vector, count, watch in TCPWatch.from(watch).send(socket, vector, count) }))
    }

    deinit { functions.deallocate() }

    /// Hands the functions to `channel`; this watch must outlive it.
    func install(on channel: OpaquePointer) {
        ares_set_socket_functions(channel, functions, Unmanaged.passUnretained(self).toOpaque())
    }

    /// What happened over TCP to `question`, which c-ares ended with `status`, when it went wrong there.
    func trouble(of question: String, status: Int32) -> Trouble? {
        if askedOverTCP.contains(question), let trouble { return trouble }
        if status == ARES_ECONNREFUSED, refusedOverTCP, !refusedOverUDP { return .refused }
        return nil
    }

    private static func from(_ pointer: UnsafeMutableRawPointer?) -> TCPWatch {
        Unmanaged<TCPWatch>.fromOpaque(pointer!).takeUnretainedValue()
    }

    private func note(_ what: Trouble) {
        if what == .refused { refusedOverTCP = true } else if trouble == nil { trouble = what }
    }

    private func open(_ family: Int32, _ type: Int32, _ proto: Int32) -> ares_socket_t {
        let fd = socket(family, type | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), proto)
        guard fd >= 0 else { return ARES_SOCKET_BAD }
        if type == Int32(SOCK_STREAM.rawValue) {
            var on: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            streams[fd] = Stream()
        }
        return fd
    }

    private func closeSocket(_ fd: ares_socket_t) -> Int32 {
        streams[fd] = nil
        return close(fd)
    }

    private func connectSocket(_ fd: ares_socket_t, _ address: UnsafePointer<sockaddr>?, _ length: ares_socklen_t)
        -> Int32
    {
        let result = connect(fd, address, length)
        let error = errno
        if result < 0, error == ECONNREFUSED, streams[fd] != nil { note(.refused) }
        errno = error
        return result
    }

    private func receive(
        _ fd: ares_socket_t, _ buffer: UnsafeMutableRawPointer?, _ length: Int, _ flags: Int32,
        _ from: UnsafeMutablePointer<sockaddr>?, _ fromLength: UnsafeMutablePointer<ares_socklen_t>?
    ) -> ares_ssize_t {
        let count = recvfrom(fd, buffer, length, flags, from, fromLength)
        let error = errno
        defer { errno = error }
        guard var stream = streams[fd] else {
            if count < 0, error == ECONNREFUSED { refusedOverUDP = true }
            return count
        }
        if count > 0, let buffer {
            for message in stream.received.take(UnsafeRawBufferPointer(start: buffer, count: count)) {
                // What c-ares would take as an answer: a response with a header, to an id asked.
                let id = message.count >= 12 ? UInt16(message[0]) << 8 | UInt16(message[1]) : nil
                if message.count < 12 || message[2] & 0x80 == 0 || !stream.sentIDs.contains(id ?? 0) {
                    note(.malformed)
                }
            }
        } else if count == 0 {
            note(stream.received.isEmpty ? .closedByServer : .malformed)
        } else if error == ECONNREFUSED {
            note(.refused)
        } else if error == ECONNRESET {
            note(.closedByServer)
        }
        streams[fd] = stream
        return count
    }

    private func send(_ fd: ares_socket_t, _ vector: UnsafePointer<iovec>?, _ count: Int32) -> ares_ssize_t {
        let written = writev(fd, vector, count)
        let error = errno
        defer { errno = error }
        guard var stream = streams[fd], let vector else {
            if written < 0, error == ECONNREFUSED { refusedOverUDP = true }
            return written
        }
        if written < 0, error == ECONNREFUSED { note(.refused) }
        var left = max(0, written)
        for index in 0..<Int(count) where left > 0 {
            let part = vector[index]
            let taken = min(left, part.iov_len)
            left -= taken
            for query in stream.sent.take(UnsafeRawBufferPointer(start: part.iov_base, count: taken))
            where query.count >= 12 {
                stream.sentIDs.insert(UInt16(query[0]) << 8 | UInt16(query[1]))
                if let question = Self.question(of: query) { askedOverTCP.insert(question) }
            }
        }
        streams[fd] = stream
        return written
    }

    /// "name/TYPE-code" of a query's first question, as `PendingQuery.question` writes it.
    static func question(of message: [UInt8]) -> String? {
        message.withUnsafeBufferPointer { bytes -> String? in
            var reader = DNSResponse.Reader(bytes: bytes, offset: 12)
            guard let name = try? reader.name(), let type = try? reader.u16() else { return nil }
            return "\(name)/\(type)"
        }
    }
}

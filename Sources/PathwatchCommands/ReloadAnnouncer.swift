import Glibc
import PathwatchAgent
import PathwatchBase
import PathwatchSinkKit
import Synchronization

/// The agent's end of the reload channel: listens from start to stop; a doorkeeper thread takes
/// each connection as it comes, so the socket's backlog cannot be filled by connections nobody
/// accepts; each reload takes those that asked as its audience, then answers them.
///
/// Anyone on the host may connect to an abstract socket. The doorkeeper closes at once a
/// connection from any user but the agent's own and root, one that has not said `await` within
/// `requestSeconds`, and one beyond the `heldLimit` it keeps (told `busy`, which the client
/// retries until its timeout): a flood costs the agent a few descriptors, never the channel.
package final class ReloadAnnouncer: Sendable {
    /// Connections kept at once, asking or waiting for a reload.
    static let heldLimit = 16
    /// How long a connection may take to say `await`.
    static let requestSeconds: UInt64 = 5

    private let door: Doorkeeper

    /// Listens on the agent's address; nil (and a warning) when it cannot, in which case SIGHUP
    /// still reloads and only `pathwatch reload` has no one to hear from.
    package init?(logger: AgentLogger) {
        let fd = Glibc.socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            logger.warning("pathwatch reload cannot hear this agent: socket: \(errnoText())")
            return nil
        }
        let bound = ReloadChannel.withAbstractAddress(ReloadChannel.address(of: getpid())) { bind(fd, $0, $1) }
        guard bound == 0, listen(fd, 64) == 0, let pipe = makePipe(nonBlocking: true) else {
            logger.warning(
                "pathwatch reload cannot hear this agent: \(ReloadChannel.address(of: getpid())): \(errnoText())")
            close(fd)
            return nil
        }
        let door = Doorkeeper(listener: fd, wake: pipe)
        guard startDetachedThread({ door.keep() }) else {
            logger.warning("pathwatch reload cannot hear this agent: no thread for its socket")
            door.stop()
            close(fd)
            close(pipe.read)
            return nil
        }
        self.door = door
    }

    deinit { door.stop() }

    /// The clients that asked so far: they hear this reload's verdict. One whose request is in
    /// its socket but not yet read by the doorkeeper (it asked, then signalled) is read here.
    package func takeAudience() -> [Int32] { door.takeAudience() }

    /// Tells each client of `audience` the verdict, and lets it go. A client that left is skipped.
    package func answer(_ audience: [Int32], with verdict: ReloadChannel.Verdict) {
        for client in audience {
            Held.say(verdict, to: client)
            close(client)
        }
    }
}

/// The doorkeeper's thread and what it shares with the reloads.
private final class Doorkeeper: Sendable {
    private let listener: Int32
    private let wake: (read: Int32, write: Int32)
    private let held = Mutex(Held())

    init(listener: Int32, wake: (read: Int32, write: Int32)) {
        self.listener = listener
        self.wake = wake
    }

    func takeAudience() -> [Int32] {
        let audience = held.withLock { state -> [Int32] in
            state.admit(from: listener)
            for fd in Array(state.asking.keys) { state.read(fd) }
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        nudge()
        return audience
    }

    /// Ends the thread (it closes the listener and what it held); the wake pipe's write end
    /// is closed here, once the thread has been told.
    func stop() {
        held.withLock { $0.stopping = true }
        nudge()
        close(wake.write)
    }

    /// Wakes the thread, so that it watches what it holds now.
    private func nudge() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// Sleeps in poll(2) on the listener, the held connections and the wake pipe, until stopped.
    func keep() {
        setThreadName("pw-reload")
        while true {
            let (watched, timeout) = held.withLock { state -> ([Int32]?, Int32) in
                if state.stopping { return (nil, 0) }
                return (Array(state.asking.keys) + state.waiting, state.pollTimeout())
            }
            guard let watched else { break }
            var entries = ([listener, wake.read] + watched).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&entries, nfds_t(entries.count), timeout)
            if ready < 0 && errno != EINTR { break }
            if entries[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wake.read, &drain, drain.count) > 0 {}
            }
            let starved = held.withLock { state -> Bool in
                if entries[0].revents != 0 { state.admit(from: listener) }
                for entry in entries.dropFirst(2) where entry.revents != 0 { state.read(entry.fd) }
                state.closeOverdue()
                return state.starved
            }
            if starved { _ = poll(nil, 0, 100) }
        }
        let leftover = held.withLock { state in Array(state.asking.keys) + state.waiting }
        for fd in leftover { close(fd) }
        close(listener)
        close(wake.read)
    }
}

/// The connections the doorkeeper keeps, behind its lock: every call on them is made under it,
/// so a descriptor is never closed by one side while the other reads it.
private struct Held {
    /// Accepted, not yet asked: when each must have asked by, and what it said so far.
    var asking: [Int32: (deadline: UInt64, said: [UInt8])] = [:]
    /// Asked: the next reload answers them.
    var waiting: [Int32] = []
    var stopping = false

    /// Accepts every queued connection: the agent's user's and root's are kept while there is
    /// room, the rest closed at once.
    /// Out of descriptors, the listener stays readable with nothing to be accepted: the
    /// doorkeeper then pauses instead of spinning.
    var starved = false

    mutating func admit(from listener: Int32) {
        starved = false
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                starved = errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM
                return
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            guard Self.mayHear(client) else {
                close(client)
                continue
            }
            guard asking.count + waiting.count < ReloadAnnouncer.heldLimit else {
                Self.say(.busy("\(ReloadAnnouncer.heldLimit) clients wait already"), to: client)
                close(client)
                continue
            }
            asking[client] = (monotonicNanoseconds() + ReloadAnnouncer.requestSeconds * 1_000_000_000, [])
        }
    }

    /// Reads what `fd` has to say: an asking one becomes waiting once it said `await`; anything
    /// else, or its end, closes it. A waiting one says no more: input or its end closes it.
    mutating func read(_ fd: Int32) {
        // The doorkeeper polls the descriptors it held when it last looked: one a reload has
        // taken and closed since may be another file of the agent's now, never to be read here.
        guard asking[fd] != nil || waiting.contains(fd) else { return }
        var chunk = [UInt8](repeating: 0, count: 64)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
        if let index = waiting.firstIndex(of: fd) {
            waiting.remove(at: index)
            close(fd)
            return
        }
        guard var entry = asking[fd] else { return }
        guard n > 0 else {
            asking[fd] = nil
            close(fd)
            return
        }
        entry.said += chunk[0..<n]
        guard let end = entry.said.firstIndex(of: UInt8(ascii: "\n")) else {
            if entry.said.count > ReloadChannel.request.utf8.count + 1 {
                asking[fd] = nil
                close(fd)
            } else {
                asking[fd] = entry
            }
            return
        }
        asking[fd] = nil
        if entry.said[..<end].elementsEqual(ReloadChannel.request.utf8) && end == entry.said.count - 1 {
            waiting.append(fd)
            let line = Array((ReloadChannel.acknowledgement + "\n").utf8)
            _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        } else {
            close(fd)
        }
    }

    /// Closes the asking connections whose time to ask is up.
    mutating func closeOverdue() {
        let now = monotonicNanoseconds()
        for (fd, entry) in asking where entry.deadline <= now {
            asking[fd] = nil
            close(fd)
        }
    }

    /// Milliseconds until the next asking connection is due, -1 when none is.
    func pollTimeout() -> Int32 {
        guard let next = asking.values.map(\.deadline).min() else { return -1 }
        let now = monotonicNanoseconds()
        return next <= now ? 0 : Int32(min((next - now) / 1_000_000 + 1, 60_000))
    }

    /// The agent's own user, or root (SO_PEERCRED: who connected, not who holds the socket now).
    static func mayHear(_ client: Int32) -> Bool {
        var peer = PeerCredentials()
        var size = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(client, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0 else { return false }
        return peer.uid == getuid() || peer.uid == 0
    }

    /// One line, without waiting: a client whose buffer is full or that left goes without.
    static func say(_ verdict: ReloadChannel.Verdict, to client: Int32) {
        let line = Array(verdict.line.utf8)
        _ = line.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }
}

/// `struct ucred` (SO_PEERCRED's answer), which Swift's Glibc module leaves out: it is declared
/// only under _GNU_SOURCE.
private struct PeerCredentials {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
}

import Glibc
import PathwatchBase

/// `pathwatch reload`: asks the running agent to re-read its configuration and waits for its
/// verdict (ReloadChannel), so that a refused configuration fails the command, and
/// `systemctl reload` with it, instead of being one line in the journal. Every step (finding the
/// agent, connecting, asking, waiting) keeps within the one timeout: the socket is non-blocking
/// and each wait is a poll(2) bounded by what is left of it.
package enum ReloadRequest {
    package enum Outcome: Sendable, Equatable {
        case reloaded(String)
        case refused(String)
        /// The agent is there but cannot take the request now (its channel is full), or gave no
        /// verdict within the timeout: why. Worth trying again.
        case busy(String)
        /// No agent to ask, or none listens where it would: why.
        case failed(String)
    }

    /// Signals agent `pid` (nil: the one `pathwatch run` of this user, or of any user as root)
    /// and waits up to `timeoutSeconds` for its verdict.
    package static func perform(pid: pid_t?, timeoutSeconds: Double) -> Outcome {
        let deadline = Deadline(seconds: timeoutSeconds)
        let target: pid_t
        switch pid.map(Result<pid_t, AgentSearchError>.success) ?? RunningAgents.theOne(within: deadline) {
        case .success(let found): target = found
        case .failure(let error): return .failed(error.description)
        }
        let seconds = "\(Int(timeoutSeconds.rounded(.up)))s"
        // One this user may not signal would be asked in vain: the agent closes its connection.
        guard kill(target, 0) == 0 else {
            let why = errno == ESRCH ? "no process has pid \(target)" : "cannot signal pid \(target): \(errnoText())"
            return .failed(why)
        }
        var lastBusy = "its reload channel is full"
        // A full channel (the backlog, or the agent's waiting clients) is tried again until the
        // deadline: it empties as the agent's doorkeeper closes what does not belong.
        while true {
            let fd: Int32
            switch connectChannel(of: target, before: deadline) {
            case .connected(let connected): fd = connected
            case .absent(let why): return .failed("cannot ask pid \(target) for its verdict: \(why)")
            case .full: return .busy("pid \(target) is busy: \(lastBusy) (tried for \(seconds))")
            }
            defer { close(fd) }
            switch ask(target, on: fd, before: deadline, seconds: seconds) {
            case .done(let outcome): return outcome
            case .full(let why):
                lastBusy = why
                guard deadline.pause(milliseconds: 100) else {
                    return .busy("pid \(target) is busy: \(why) (tried for \(seconds))")
                }
            }
        }
    }

    private enum Attempt {
        case done(Outcome)
        /// The agent had no room for the request: why. Worth asking again.
        case full(String)
    }

    /// One request on a connected `fd`: asked, signalled once the agent holds it, answered.
    private static func ask(_ target: pid_t, on fd: Int32, before deadline: Deadline, seconds: String) -> Attempt {
        var buffer: [UInt8] = []
        // A request the agent had no room for is cut short (it said `busy` and closed): what it
        // said is read all the same.
        if !send(fd, ReloadChannel.request + "\n", before: deadline), deadline.passed {
            return .done(.busy("pid \(target) took no request within \(seconds)"))
        }
        // The agent says it holds the request before it is signalled: the reload the signal
        // starts answers this connection, and a client it had no room for signals nothing.
        var answer = readLine(from: fd, before: deadline, buffer: &buffer)
        if answer == ReloadChannel.acknowledgement {
            guard kill(target, SIGHUP) == 0 else {
                return .done(.failed("cannot signal pid \(target): \(errnoText())"))
            }
            answer = readLine(from: fd, before: deadline, buffer: &buffer)
            if answer == nil {
                return .done(
                    deadline.passed
                        ? .busy("pid \(target) gave no verdict within \(seconds)")
                        : .failed("pid \(target) closed the connection without a verdict"))
            }
        }
        guard let answer else {
            // Closed without a word, or no word in time.
            guard !deadline.passed else {
                return .done(.busy("pid \(target) did not take the request within \(seconds)"))
            }
            return .full("it closed the connection before taking the request")
        }
        switch ReloadChannel.Verdict(line: answer) {
        case .reloaded(let summary): return .done(.reloaded(summary))
        case .refused(let reason): return .done(.refused(reason))
        case .busy(let why): return .full(why)
        case nil: return .done(.failed("pid \(target) answered what is not a verdict: \(answer.prefix(200))"))
        }
    }

    private enum Connection {
        case connected(Int32)
        /// Nothing listens there: no agent (ECONNREFUSED for an abstract name nobody bound).
        case absent(String)
        /// The backlog stayed full until the deadline.
        case full
    }

    /// A connection to `pid`'s channel, tried again while its backlog is full (EAGAIN).
    private static func connectChannel(of pid: pid_t, before deadline: Deadline) -> Connection {
        while true {
            let fd = socket(
                AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { return .absent("socket: \(errnoText())") }
            var result = ReloadChannel.withAbstractAddress(ReloadChannel.address(of: pid)) { connect(fd, $0, $1) }
            var code = result == 0 ? 0 : errno
            if code == EINPROGRESS {
                // Not what a Unix socket does today, but a connect in progress is waited for too.
                var watch = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&watch, 1, deadline.millisecondsLeft) > 0 {
                    var size = socklen_t(MemoryLayout<Int32>.size)
                    result = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &size)
                } else {
                    code = EAGAIN
                }
            }
            if code == 0 { return .connected(fd) }
            close(fd)
            switch code {
            case EAGAIN, EWOULDBLOCK, EINTR:
                guard deadline.pause(milliseconds: 50) else { return .full }
            case ECONNREFUSED, ENOENT:
                let alive = kill(pid, 0) == 0 || errno == EPERM
                return .absent(
                    alive ? "no pathwatch agent listens for reloads as pid \(pid)" : "no process has pid \(pid)")
            default: return .absent(errnoText(code))
            }
        }
    }

    /// Writes `text` whole, or false at the deadline or an error.
    private static func send(_ fd: Int32, _ text: String, before deadline: Deadline) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                bytes = bytes.dropFirst(n)
                continue
            }
            guard n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { return false }
            var watch = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard !deadline.passed, poll(&watch, 1, deadline.millisecondsLeft) >= 0 || errno == EINTR else {
                return false
            }
        }
        return true
    }

    /// One line (without its newline), or nil at the deadline or an end before any line.
    /// `buffer` keeps what came after the line, for the next.
    private static func readLine(from fd: Int32, before deadline: Deadline, buffer bytes: inout [UInt8]) -> String? {
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            if let end = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                defer { bytes.removeSubrange(...end) }
                return String(decoding: bytes[..<end], as: UTF8.self)
            }
            guard bytes.count < 65_536 else {
                defer { bytes.removeAll() }
                return String(decoding: bytes, as: UTF8.self)
            }
            guard !deadline.passed else { return nil }
            var watch = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watch, 1, deadline.millisecondsLeft)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { return nil }
            if ready == 0 { continue }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard n > 0 else {
                defer { bytes.removeAll() }
                return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
            }
            bytes += chunk[0..<n]
        }
    }
}

/// The one deadline every step of a request keeps within.
struct Deadline: Sendable {
    let end: UInt64

    init(seconds: Double) { end = monotonicNanoseconds() + UInt64(max(0, seconds) * 1e9) }

    var passed: Bool { monotonicNanoseconds() >= end }

    /// What is left, in poll(2)'s milliseconds (rounded up, so a wait ends at or after the deadline).
    var millisecondsLeft: Int32 {
        let now = monotonicNanoseconds()
        return now >= end ? 0 : Int32(min((end - now + 999_999) / 1_000_000, UInt64(Int32.max)))
    }

    /// Sleeps `milliseconds`, or what is left if less; false when nothing was left.
    func pause(milliseconds: Int32) -> Bool {
        guard !passed else { return false }
        _ = poll(nil, 0, min(milliseconds, millisecondsLeft))
        return true
    }
}
